/**
 * `--auth user:password`: HTTP basic authentication in front of the dashboard, the credentials
 * compared in constant time (crypto.timingSafeEqual), so the time an answer takes tells nothing
 * about how much of a guess was right.
 */
import { timingSafeEqual } from "crypto";
import type { IncomingMessage, ServerResponse } from "http";
import { InvalidArgumentError } from "commander";

/** Parses --auth: a user and a password, split at the first colon, neither empty. */
export function credentials(value: string): string {
  const colon = value.indexOf(":");
  if (colon <= 0 || colon === value.length - 1) throw new InvalidArgumentError("Expected user:password, neither empty.");
  return value;
}

/** Whether `req` carries the `user:password` credentials. */
export function authorized(req: IncomingMessage, userAndPassword: string): boolean {
  const expected = Buffer.from(`Basic ${Buffer.from(userAndPassword, "utf8").toString("base64")}`);
  const given = Buffer.from(req.headers.authorization ?? "");
  // timingSafeEqual needs equal lengths; comparing with itself keeps the time the same on a mismatch.
  const same = given.length === expected.length;
  return timingSafeEqual(same ? given : expected, expected) && same;
}

/** The 401 answer that makes a browser ask for the credentials. */
export function askForCredentials(res: ServerResponse): void {
  res.writeHead(401, {
    "WWW-Authenticate": 'Basic realm="rsmq-next dashboard", charset="UTF-8"',
    "Content-Type": "text/plain; charset=utf-8",
  });
  res.end("Authentication required.\n");
}
