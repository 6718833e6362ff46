/**
 * sweepExpiredAsync's loop: chunks of lua/sweepExpired-2.lua under the queue's sweep lock until the
 * pass is done, each chunk's parked messages moved to the queue's expireTo before the next chunk.
 */
import { randomBytes } from "crypto";
import { sweepExpiredChunk } from "../operations/sweep-expired";
import type { SweepExpiredOptions, SweepResult } from "../types";
import { moveExpired } from "./expired-moves";
import type { ExpiryOwner } from "./expired-moves";
import { defineProcedure } from "../operations/descriptor";
import { validateQname } from "../operations/rsmq-input-rules";

/** How long a sweeper's lock holds without its next chunk: a crashed sweeper blocks others this long at most. */
export const SWEEP_LOCK_MS = 30_000;

/** A sweeper's token in the lock: unique enough that two sweepers never share one. */
export function sweeperToken(): string {
  return randomBytes(9)
    .toString("base64url")
    .replace(/[^A-Za-z0-9]/g, "x");
}

/** Sweeps `qname` once, from its first rank to its last. */
export async function sweepExpired(owner: ExpiryOwner, qname: unknown): Promise<SweepResult> {
  const token = sweeperToken();
  const result: SweepResult = { expired: 0, moved: 0, failed: 0, chunks: 0, busy: false };
  let cursor = 0;
  for (;;) {
    const chunk = await owner.run(() => sweepExpiredChunk(owner.layout, qname, token, cursor, SWEEP_LOCK_MS));
    result.chunks += 1;
    if (chunk.state === "busy") return { ...result, busy: true };
    const moves = await moveExpired(owner, String(qname), chunk.expired);
    result.expired += moves.deleted + moves.moved;
    result.moved += moves.moved;
    result.failed += moves.failed;
    if (chunk.state === "done") return result;
    cursor = chunk.next;
  }
}

/** sweepExpiredAsync: the queue's expired messages, the hidden ones included, under its sweep lock. */
export const sweepExpiredOperation = defineProcedure<SweepExpiredOptions, SweepResult>({
  optionKeys: { qname: true },
  prepare: ({ qname }) => {
    validateQname(qname);
    return (internals) => sweepExpired(internals, qname);
  },
});
