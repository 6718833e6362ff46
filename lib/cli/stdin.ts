/** Reading a message from stdin, for `send` without a message argument. */
import { usageError } from "./errors";

/** All of stdin as UTF-8, one trailing newline removed (as `$(...)` in a shell would). */
export async function readStdin(stdin: NodeJS.ReadStream = process.stdin): Promise<string> {
  if (stdin.isTTY) {
    throw usageError("no message given", "give it as an argument, or pipe it in: echo hello | rsmq-next send <qname>");
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}
