/**
 * The byte bound of one batch script call. Redis runs nothing else while a script runs, and a
 * batch's time grows with the bytes of message bodies it writes or returns (1000 entries of 60 KB
 * took one sendMessages script 270 ms and one receiveMessages script 1.4 s), so the count alone
 * (MAX_BATCH) does not keep a call short. A batch send over the bound is refused here, before any
 * round trip; a batch receive or look stops adding messages at it, on the server.
 * `npm run bench -- --only batch-bound` measures what a call at the bound takes.
 */
import { rsmqError } from "../errors/rsmq-errors";

/**
 * The most bytes of message bodies one batch script call writes or returns: 1 MiB, counted in
 * UTF-8 bytes, as Redis stores a body (not in `maxsize`'s UTF-16 units).
 */
export const MAX_BATCH_BYTES = 1_048_576;

/** A body's size as Redis stores it. */
export function bodyBytes(message: string): number {
  return Buffer.byteLength(message, "utf8");
}

/**
 * Refuses a batch send whose bodies add up to more than MAX_BATCH_BYTES with `batchTooLarge`,
 * before any round trip: splitting it into several script calls would break the one round trip
 * per call and let a failure between them leave part of the batch written.
 */
export function refuseOversizedBatch(messages: readonly string[]): void {
  let total = 0;
  for (const message of messages) total += bodyBytes(message);
  if (total <= MAX_BATCH_BYTES) return;
  throw rsmqError(
    "batchTooLarge",
    `messages hold ${total} bytes of bodies, over the ${MAX_BATCH_BYTES} (1 MiB) one sendMessages call may carry: ` +
      "split them into several calls (a body that large alone: sendMessage)",
  );
}
