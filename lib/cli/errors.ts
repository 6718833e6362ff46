/**
 * What the command line reports when something goes wrong, and with which exit code: 1 for a
 * failure (Redis unreachable, queue missing), 2 for a usage error (bad arguments). Every message
 * names the problem; a hint names the fix. The library's errors are told apart by `name` and
 * `code`, never by their text; Redis' own replies, by the code word they start with.
 */
import { INVALID_FORMAT_CODES } from "../errors/rsmq-errors";
import { QNAME_FORMAT } from "../operations/rsmq-input-rules";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: typeof EXIT_FAILURE | typeof EXIT_USAGE = EXIT_FAILURE,
    /** One line saying how to fix it. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export function usageError(message: string, hint?: string): CliError {
  return new CliError(message, EXIT_USAGE, hint);
}

/** Where a command was working when it failed, for the message. */
export interface ErrorContext {
  /** The server, password hidden. */
  readonly server: string;
  readonly ns: string;
  /** The queue the command was about, if any. */
  qname?: string;
  /** The schedule of that queue the command was about, if any. */
  schedule?: string;
}

/** rsmq's input errors: the arguments were wrong, so they are usage errors. */
const INPUT_ERRORS = new Set(["missingParameter", "invalidFormat", "invalidValue", "noAttributeSupplied", "messageNotString"]);

const SOCKET_CODES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  ECONNRESET: "connection reset",
  EPIPE: "connection closed",
};

/**
 * node-redis' connection errors, by class name (matching by class rather than importing them
 * keeps node-redis unloaded for --help and usage errors).
 */
const CLIENT_ERRORS: Record<string, string> = {
  ConnectionTimeoutError: "no answer in time",
  SocketClosedUnexpectedlyError: "the server closed the connection",
  ClientClosedError: "the connection is closed",
};

/** The first connection was not up within the command line's connect timeout. */
export class ConnectDeadline extends Error {
  constructor(
    readonly ms: number,
    /** Whether the server accepted the connection (and then did not answer its handshake). */
    readonly accepted: boolean,
  ) {
    super(`no connection within ${ms} ms`);
    this.name = "ConnectDeadline";
  }
}

/** Why a socket-level error happened, in a few words; undefined for anything that is no connection problem. */
export function connectionProblem(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  if (error instanceof ConnectDeadline) return error.accepted ? "no answer to the connection's handshake" : "no answer in time";
  const kind = error.constructor?.name ?? "";
  if (kind === "ReconnectStrategyError")
    return connectionProblem((error as { socketError?: unknown }).socketError) ?? "gave up reconnecting";
  if (kind in CLIENT_ERRORS) return CLIENT_ERRORS[kind];
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code in SOCKET_CODES) return SOCKET_CODES[code];
  // Several addresses tried (localhost: ::1 and 127.0.0.1): node reports an AggregateError.
  const inner = (error as { errors?: unknown } | null)?.errors;
  if (Array.isArray(inner) && inner.length > 0) return connectionProblem(inner[0]);
  return undefined;
}

export function cannotReach(server: string, problem: string): CliError {
  return new CliError(
    `cannot reach Redis at ${server}: is it running? (${problem})`,
    EXIT_FAILURE,
    "start one with `redis-server`, or point --url (or REDIS_URL) at your server",
  );
}

/** A server that accepted the connection and then said nothing. */
export function silentServer(server: string, ms: number): CliError {
  return new CliError(
    `Redis at ${server} accepted the connection but did not answer within ${ms / 1000} s`,
    EXIT_FAILURE,
    "check that --url (or REDIS_URL) is the port of a Redis server (not of a proxy or another service), and that the server is not stuck in a long command (a slow script, DEBUG SLEEP)",
  );
}

/** Turns any error from a command into a CliError with a message for people. */
export function explain(error: unknown, context: ErrorContext): CliError {
  if (error instanceof CliError) return error;
  const problem = connectionProblem(error);
  if (problem) return cannotReach(context.server, problem);
  if (!(error instanceof Error)) return new CliError(String(error));
  const queue = context.qname ? `queue "${context.qname}"` : "the queue";
  switch (error.name) {
    case "queueNotFound":
      return new CliError(
        `${queue} does not exist in namespace "${context.ns}"`,
        EXIT_FAILURE,
        "list the queues with `rsmq-next queues` (and check --ns)",
      );
    case "queueExists":
      return new CliError(
        `${queue} already exists in namespace "${context.ns}"`,
        EXIT_FAILURE,
        "see it with `rsmq-next stats " + (context.qname ?? "<qname>") + "`",
      );
    case "scheduleNotFound":
      return new CliError(
        `${queue} has no schedule${context.schedule === undefined ? "" : ` "${context.schedule}"`}`,
        EXIT_FAILURE,
        "list its schedules with `rsmq-next schedule ls " + (context.qname ?? "<qname>") + "`",
      );
    case "messageTooLong":
      return new CliError(
        `the message is longer than ${queue} allows (its maxsize)`,
        EXIT_FAILURE,
        "see the limit with `rsmq-next stats " + (context.qname ?? "<qname>") + "`",
      );
  }
  const code = (error as { code?: unknown }).code;
  // The code is the same for every queue name a call takes (redrive's `to` too): it is the
  // command's own queue only when that is the malformed one.
  if (code === INVALID_FORMAT_CODES.qname && context.qname !== undefined && !QNAME_FORMAT.test(context.qname)) {
    return usageError(`invalid queue name "${context.qname}"`, "a queue name is 1 to 160 of a-z A-Z 0-9 _ -");
  }
  if (code === INVALID_FORMAT_CODES.id) {
    return usageError("invalid message id", "a message id is 32 characters of a-z A-Z 0-9, as `send` printed it");
  }
  if (INPUT_ERRORS.has(error.name)) return usageError(error.message);
  if (error.name === "noPermission") return refusedByAcl(context.server, error);
  return refusedSettings(context.server, error) ?? new CliError(error.message);
}

/** The URL without its user, password and database: what a hint suggests instead. */
function plainAddress(server: string): string {
  try {
    const url = new URL(server);
    return `${url.protocol}//${url.host}`;
  } catch {
    return server;
  }
}

/**
 * Redis' answers to what a connection sets up from --url (AUTH, SELECT): the cause and the fix
 * in the user's terms; undefined for any other error. `server` is the URL, password hidden.
 */
export function refusedSettings(server: string, error: Error): CliError | undefined {
  const said = error.message;
  // Redis 6 and later; before 6: "ERR Client sent AUTH, but no password is set".
  if (/^ERR AUTH <password> called without any password configured|^ERR Client sent AUTH, but no password is set/.test(said)) {
    return new CliError(
      `Redis at ${server} has no password set, but --url gives one (Redis said: ${said})`,
      EXIT_FAILURE,
      `leave the password out of --url (${plainAddress(server)}), or give the server one (requirepass, or ACL SETUSER default on >password)`,
    );
  }
  if (/^NOAUTH/.test(said)) {
    const address = new URL(plainAddress(server));
    return new CliError(
      `Redis at ${server} wants a password, and --url gives none (Redis said: ${said})`,
      EXIT_FAILURE,
      `give it in --url: ${address.protocol}//:<password>@${address.host} (or ${address.protocol}//<user>:<password>@${address.host})`,
    );
  }
  if (/^WRONGPASS|^NOPERM/.test(said)) {
    return new CliError(`Redis at ${server} refused: ${said}`, EXIT_FAILURE, "check the user and password in --url");
  }
  if (/^ERR DB index is out of range|^ERR invalid DB index/.test(said)) {
    const database = (() => {
      try {
        return new URL(server).pathname.slice(1) || "0";
      } catch {
        return "?";
      }
    })();
    return new CliError(
      `database ${database} does not exist on Redis at ${server} (Redis said: ${said})`,
      EXIT_FAILURE,
      "a database number runs from 0 to the server's `databases` setting minus 1 (0 to 15 by default): change or drop the /<db> at the end of --url",
    );
  }
  return undefined;
}

/** rediss:// (TLS) to a server that answered in plain TCP. */
export function plainServerForTls(server: string): CliError {
  return new CliError(
    `Redis at ${server} speaks plain TCP, not TLS: rediss:// asks for TLS, and the server answered a plain PING instead`,
    EXIT_FAILURE,
    `use ${plainAddress(server).replace(/^rediss:/, "redis:")} for this server, or point rediss:// at its TLS port (tls-port)`,
  );
}

/** A `noPermission` error: the user logged in, but its ACL lacks what the command needs. */
export function refusedByAcl(server: string, error: Error): CliError {
  return new CliError(
    `Redis at ${server} refused: ${error.message}`,
    EXIT_FAILURE,
    "grant the Redis user what is named above (ACL SETUSER), or use a user with the rules in rsmq-next's docs/acl.md",
  );
}
