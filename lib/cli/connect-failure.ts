/**
 * Why a connection could not be opened, in the user's terms: no server (refused, timed out, no
 * such host), a server that refused what --url asks of it (a password, a database), or rediss://
 * (TLS) to a server that speaks plain TCP, which otherwise looks like a server that never answers.
 */
import { connect } from "net";
import { ConnectDeadline, cannotReach, connectionProblem, plainServerForTls, refusedByAcl, refusedSettings, silentServer } from "./errors";
import { redactUrl } from "./format";

/** How long the plain PING may take. */
const PROBE_TIMEOUT_MS = 1000;

/** Node's TLS failures, e.g. ERR_SSL_WRONG_VERSION_NUMBER when the other side sent no TLS. */
function isTlsFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("ERR_SSL_") || code === "EPROTO");
}

/**
 * Whether a Redis answers a plain-text PING at host:port within the timeout: any RESP status or
 * error reply (+PONG, -NOAUTH ..., -DENIED ...) counts.
 */
export function answersPlainPing(host: string, port: number, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = "";
    const done = (answered: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk: Buffer) => {
      reply += chunk.toString("latin1");
      if (reply.includes("\r\n")) done(/^[+-]/.test(reply));
    });
    socket.once("error", () => done(false));
    socket.once("close", () => done(false));
  });
}

/** Whether `url` is rediss:// to a server that answers in plain TCP. */
export async function isPlainServerForTls(url: string, error: unknown): Promise<boolean> {
  const parsed = new URL(url);
  if (parsed.protocol !== "rediss:") return false;
  if (!connectionProblem(error) && !isTlsFailure(error)) return false;
  return answersPlainPing(parsed.hostname.replace(/^\[|\]$/g, ""), Number(parsed.port || 6379));
}

/** The error to report for a connection to `url` that failed with `error`. */
export async function explainConnectFailure(url: string, error: unknown): Promise<unknown> {
  const server = redactUrl(url);
  if (await isPlainServerForTls(url, error)) return plainServerForTls(server);
  if (error instanceof ConnectDeadline && error.accepted) return silentServer(server, error.ms);
  const problem = connectionProblem(error);
  if (problem) return cannotReach(server, problem);
  if (!(error instanceof Error)) return error;
  if (error.name === "noPermission") return refusedByAcl(server, error);
  return refusedSettings(server, error) ?? error;
}
