/**
 * Which status an error from rsmq or the board gets: bad input 400, a missing queue, message or schedule 404,
 * an existing queue 409, a refusal by the Redis ACL 403; anything else means Redis could not do it
 * (unreachable, timed out, over maxmemory, a replica), 503.
 */
import { HttpError } from "./http-error";

const STATUS_BY_NAME: Readonly<Record<string, number>> = {
  noAttributeSupplied: 400,
  missingParameter: 400,
  invalidFormat: 400,
  invalidValue: 400,
  messageNotString: 400,
  messageTooLong: 400,
  batchTooLarge: 400,
  queueNotFound: 404,
  messageNotFound: 404,
  scheduleNotFound: 404,
  queueExists: 409,
  noPermission: 403,
};

/** The answer for an error thrown while serving a route. */
export function errorAnswer(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  const name = error instanceof Error ? error.name : "";
  const message = error instanceof Error ? error.message : String(error);
  const status = STATUS_BY_NAME[name];
  if (status !== undefined) return new HttpError(status, name, message);
  return new HttpError(503, "redisUnavailable", `Redis could not answer: ${message}. The page retries by itself.`);
}
