/**
 * What the client does after a script expired messages (lib/retention/expired-report.ts): counts
 * them in telemetry, and moves the ones it parked to the queue's `expireTo` queue with the
 * DeadLetterMover (one atomic script when both queues share a slot, else the two-step move), with
 * reason `"expired"`. The facade's receives and pops, the Worker's port and the sweep all come
 * here, so every path expires the same way.
 *
 * A failed move never fails the call that already hid live messages for its caller: it becomes one
 * process warning (code RSMQ_NEXT_EXPIRED_MOVE_FAILED) per queue, target and kind of error, and the
 * parked message comes back when its hold ends, to be parked (and moved) again.
 */
import { DeadLetterMover } from "../dead-letters/dead-letter-mover";
import type { StopRecord } from "../operations/dead-letter";
import { sentAt } from "../operations/message-reply";
import type { RedisSMQInternals } from "../internals";
import type { ExpiredReport, ParkedMessage } from "./expired-report";

/** What moving expired messages needs of an instance. */
export type ExpiryOwner = RedisSMQInternals;

/** What one report came to. */
export interface ExpiredMoves {
  /** Deleted by the script. */
  deleted: number;
  /** Moved to the target queue now. */
  moved: number;
  /** Parked, but their move failed (they come back when the hold ends). */
  failed: number;
}

const NOTHING: ExpiredMoves = { deleted: 0, moved: 0, failed: 0 };

const warned = new Set<string>();

/** The record a moved expired message carries in the target queue (`<id>:dl`). */
export function expiredRecord(source: string, message: ParkedMessage): StopRecord {
  return { source, deliveries: message.rc, reason: "expired", error: "older than the queue's retention" };
}

/** Counts and moves what `report` says; never rejects (a failed move is a warning). */
export async function moveExpired(
  owner: ExpiryOwner,
  qname: string,
  report: ExpiredReport | undefined,
  mover: DeadLetterMover = new DeadLetterMover(owner),
): Promise<ExpiredMoves> {
  if (report === undefined) return NOTHING;
  const recording = owner.telemetry.recording;
  if (report.deleted > 0) recording?.expired(qname, report.deleted);
  const { target } = report;
  let moved = 0;
  let failed = 0;
  if (target !== undefined) {
    for (const parked of report.parked) {
      try {
        const message = { id: parked.id, message: parked.message, rc: parked.rc, fr: 0, sent: sentAt(parked.id) };
        if (await mover.move(qname, target, message, expiredRecord(qname, parked))) {
          moved += 1;
          recording?.expired(qname, 1);
          recording?.deadLettered(qname, "expired");
        }
      } catch (error) {
        failed += 1;
        warnMoveFailed(qname, target, error);
      }
    }
  }
  return { deleted: report.deleted, moved, failed };
}

/** `then` for a call whose result may carry a report: moves what it says, then resolves the result. */
export function movingExpired<T extends { expired?: ExpiredReport }>(owner: ExpiryOwner, qname: unknown): (result: T) => Promise<T> {
  return async (result) => {
    if (result.expired !== undefined) await moveExpired(owner, String(qname), result.expired);
    return result;
  };
}

function warnMoveFailed(qname: string, target: string, error: unknown): void {
  const failure = error instanceof Error ? error : new Error(String(error));
  const key = `${qname}/${target}/${failure.name}/${String((failure as { code?: unknown }).code ?? "")}`;
  if (warned.has(key)) return;
  warned.add(key);
  process.emitWarning(
    `rsmq-next: moving expired messages of queue "${qname}" to "${target}" failed: ${failure.name}: ${failure.message.replace(/\.+$/, "")}. ` +
      "They stay hidden in the queue for a minute, then the next receive or sweep moves them again (this warning is shown once per kind of error).",
    { code: "RSMQ_NEXT_EXPIRED_MOVE_FAILED" },
  );
}
