/**
 * commander rejects an unknown option and suggests a close one among the options of the command
 * it was given to. An option of another command (`create q --max-deliveries 3`), or one given
 * before the command name (`--vt 5 create q`), is usually a misplaced one, not a typo: this says
 * which commands take it.
 */
import type { Command } from "commander";

const UNKNOWN_OPTION = /unknown option '(-[^'=]+)/;

/** The names (`dlq list` for a nested one) of the commands that take `flag`. */
function commandsTaking(command: Command, flag: string, prefix = ""): string[] {
  return command.commands.flatMap((sub) => {
    const name = prefix + sub.name();
    const own = sub.options.some((option) => option.long === flag || option.short === flag) ? [name] : [];
    return [...own, ...commandsTaking(sub, flag, `${name} `)];
  });
}

/** Makes commander's unknown-option errors name the commands that take the option. */
export function explainMisplacedOptions(program: Command, argv: readonly string[]): void {
  const names = new Set(program.commands.map((command) => command.name()));
  const args = argv.slice(2);
  const commandAt = args.findIndex((arg) => names.has(arg));
  program.configureOutput({
    outputError: (text, write) => {
      const flag = UNKNOWN_OPTION.exec(text)?.[1];
      const owners = flag === undefined ? [] : commandsTaking(program, flag);
      if (flag === undefined || owners.length === 0) return write(text);
      const flagAt = args.findIndex((arg) => arg === flag || arg.startsWith(`${flag}=`));
      const beforeCommand = commandAt === -1 || flagAt < commandAt;
      const list = owners.map((owner) => `\`${owner}\``).join(", ");
      write(`${text.trimEnd()}\n(${flag} is an option of ${list}${beforeCommand ? ": put it after the command name" : ""})\n`);
    },
  });
}
