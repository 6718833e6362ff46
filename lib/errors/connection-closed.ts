/** The `connectionClosed` errors: a call after the user closed the connection they can reach (transports/closed-by-user.ts), or one a closed link never sent. */
import { rsmqError } from "./rsmq-errors";

/** What every call gets once the user closed the connection: what happened (`how`), and what to do. */
export function connectionClosedError(how: string): Error {
  return rsmqError(
    "connectionClosed",
    `rsmq-next: ${how}, so this RedisSMQ instance closes everything else it opened (its other ` +
      "connections, the wake subscription, its Workers) and runs no more calls. Create a new RedisSMQ " +
      "instance to go on; to close one, call rsmq.quit(), which also stops its Workers first.",
  );
}

/**
 * What a call gets when its connection is closed (quit) while the call waits for it to be ready:
 * it was never sent, so nothing of it ran.
 */
export function closedBeforeReady(where: string): Error {
  return rsmqError("connectionClosed", `rsmq-next: the connection to ${where} was closed before it was ready; the call was never sent`);
}
