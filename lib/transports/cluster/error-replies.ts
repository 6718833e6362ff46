/**
 * Tells a Redis error reply from a connection failure, whichever node-redis major made it: the
 * cluster retry rules treat anything but a reply as the connection, so a reply that is not
 * recognised (NOSCRIPT, an ACL refusal) would be retried until clusterRetryMs is up.
 */
import { ErrorReply } from "redis";

/**
 * Whether `error` is a reply from the server. node-redis 4 replies are this package's own
 * `ErrorReply`; node-redis 5 and 6 (a client passed in, from another copy of the library) have
 * their own `ErrorReply` class, with `SimpleError` and `BlobError` under it, recognised by name.
 */
export function isErrorReply(error: unknown): error is Error {
  if (error instanceof ErrorReply) return true;
  if (!(error instanceof Error)) return false;
  for (
    let proto: unknown = Object.getPrototypeOf(error);
    proto !== null && proto !== Error.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === "ErrorReply") return true;
  }
  return false;
}
