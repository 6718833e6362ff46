/**
 * Runs a built command on a connection: the registry write before or after it (SADD, SREM), the
 * script by EVALSHA (ScriptRunner), replica acknowledgement of writes when asked for, and Redis'
 * refusals (out of memory, a read-only replica, no permission) turned into errors that name the call and its keys.
 */
import type { ScriptCall } from "./script-call";
import { explainRefusal } from "../errors/refusals";
import { replicatedSender } from "../transports/replica-acks";
import type { CommandSender, ReplicaAcks, ReplicatedWriter } from "../transports/transport";
import { script } from "../scripts/script-files";
import { ScriptRunner } from "../scripts/script-runner";

export class CommandRunner {
  private readonly scripts: ScriptRunner;

  constructor(
    private readonly connection: CommandSender & ReplicatedWriter,
    /** `waitForReplicas`: how many replicas must confirm each write, and how long to wait. */
    private readonly replicaAcks: ReplicaAcks | undefined,
  ) {
    this.scripts = new ScriptRunner(connection);
  }

  /** Builds the command (bad input rejects before any round trip) and runs it. */
  run<T>(build: () => ScriptCall<T>): Promise<T> {
    try {
      const command = build();
      return command.before || command.after ? this.runWithRegistry(command) : this.runScript(command);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * A script alone (every message operation): one promise from the script's reply to the parsed
   * result, with no async layer in between (each costs more client CPU than the rest of the call).
   */
  private runScript<T>(command: ScriptCall<T>): Promise<T> {
    const body = script(command.script);
    const sender = this.replicaAcks && !body.readOnly ? replicatedSender(this.connection, this.replicaAcks) : this.connection;
    return this.scripts.run(body, command.keys, command.args, sender).then(
      (reply) => command.parse(reply),
      (error: unknown) => {
        throw explainRefusal(error, { operation: command.script, script: body, keys: command.keys });
      },
    );
  }

  /** A script with a plain command on the queue registry before or after it (Redis Cluster). */
  private async runWithRegistry<T>(command: ScriptCall<T>): Promise<T> {
    let beforeWritten = false;
    let reply: unknown;
    const body = script(command.script);
    // A write confirmed by replicas is WAITed for on the node connection that ran it.
    const sender = this.replicaAcks && !body.readOnly ? replicatedSender(this.connection, this.replicaAcks) : this.connection;
    // Built only for an error: the call's keys, for a refusal to name.
    const refused = (alreadyWritten: string | undefined) => {
      const plainKeys = [command.before, command.after].flatMap((plain) => (plain ? [plain.key] : []));
      return { operation: command.script, script: body, keys: [...command.keys, ...plainKeys], alreadyWritten };
    };
    try {
      if (command.before) await this.write(command.before.args, command.before.key);
      beforeWritten = command.before !== undefined;
      reply = await this.scripts.run(body, command.keys, command.args, sender);
    } catch (error) {
      const written = beforeWritten ? `${command.before!.args[0]} ${command.before!.args[1]} had run` : undefined;
      throw explainRefusal(error, refused(written));
    }
    try {
      if (command.after?.onlyIf(reply)) await this.write(command.after.args, command.after.key);
    } catch (error) {
      throw explainRefusal(error, refused("the operation had run"));
    }
    return command.parse(reply);
  }

  /** A plain write (the registry's SADD or SREM), acknowledged by replicas when asked to. */
  private async write(args: string[], key: string): Promise<void> {
    if (this.replicaAcks) await this.connection.sendReplicated(args, key, this.replicaAcks);
    else await this.connection.sendCommand(args, key);
  }
}
