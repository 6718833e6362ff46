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
 * The most bytes of message bodies one batch script call writes or returns: 256 KiB, counted in
 * UTF-8 bytes, as Redis stores a body (not in `maxsize`'s UTF-16 units). Measured (Redis 7.0, 2
 * busy cores): 1000 small entries alone take a script 4 to 5 ms, and 256 KiB of bodies add about
 * 0.4 ms, so no batch call goes much past what the count bound already costs; at 1 MiB, 1000
 * entries of 1 KiB took 10 to 13 ms.
 */
export const MAX_BATCH_BYTES = 262_144;

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
    `messages hold ${total} bytes of bodies, over the ${MAX_BATCH_BYTES} (256 KiB) one sendMessages call may carry: ` +
      "split them into several calls (a body that large alone: sendMessage)",
  );
}
