/**
 * The fault suite's book-keeping, shared by every scenario: what was sent, acknowledged and
 * handled, per message body (each send gets a body no other send has), and the verdict on it.
 *
 * Terms, as docs/reliability.md uses them:
 * - sent: a send was attempted; acknowledged: that send resolved with an id;
 * - delivered: a handler started on the message (with its id and receive count rc);
 * - handled: a handler on it finished (its delete may still have failed: then the message comes
 *   back after its vt, or, when the delete ran but its reply was lost, it is gone, handled once);
 * - deleted: the delete after a handling resolved;
 * - lost: acknowledged and never handled;
 * - duplicated: delivered more often than once (each delivery after the first counts).
 *
 * A duplicate is allowed only when a visibility timeout expired: every later delivery has the same
 * id (the message was stored once), a higher rc than the one before (the server received it anew,
 * which it does only once the message's time came), and either came at least vt after the one
 * before, or the one before was never deleted (its handler or its delete failed, or its process
 * died: then the message comes back once its vt ends, which may be sooner than vt after that
 * delivery began if the vt was extended). A delivery within vt of one whose delete was
 * acknowledged, the same rc twice, or one body under two ids is never allowed.
 */

export interface Delivery {
  /** Who handled it (a worker or process name), for the report. */
  consumer: string;
  id: string;
  rc: number;
  /** Local epoch ms at which the handler started. */
  at: number;
  /** Local epoch ms at which its handler finished; unset while it runs, or if it never finished. */
  handledAt?: number;
  /** Local epoch ms at which its delete resolved; unset while not (or never) deleted. */
  deletedAt?: number;
}

export interface Verdict {
  scenario: string;
  sent: number;
  acknowledged: number;
  /** Sends that rejected (their message may or may not have been stored). */
  refused: number;
  /** Distinct messages handled. */
  handled: number;
  /** Bodies acknowledged and never handled. */
  lost: string[];
  /** Deliveries beyond the first, over all messages. */
  duplicated: number;
  /**
   * The allowed duplicates by cause: the delivery before was never deleted (its process died, or
   * its delete failed), or its vt ran out while it was being handled.
   */
  duplicateCauses: { notDeleted: number; vtExpired: number };
  /** Why each duplicate or unknown delivery is not allowed; empty when every one is. */
  violations: string[];
  /** ms from the end of the fault to the first message handled after it; null if none was. */
  recoveryMs: number | null;
  /** ms from the end of the fault until every acknowledged message was handled (0 if all were before). */
  drainedMs: number | null;
}

interface Entry {
  /** Unset while a delivery reported by another process came before its send's report. */
  sentAt?: number;
  id?: string;
  refusal?: string;
  deliveries: Delivery[];
}

/** What producers and consumers report to a Ledger (in another process: to fleet.ts, which enters it). */
export interface LedgerSink {
  sent(body: string): void;
  acknowledged(body: string, id: string): void;
  refused(body: string, error: unknown): void;
  delivered(consumer: string, message: { message: string; id: string; rc: number }): void;
  handled(consumer: string, body: string): void;
  deleted(consumer: string, body: string): void;
}

export class Ledger implements LedgerSink {
  private readonly entries = new Map<string, Entry>();
  private faultEnd: number | undefined;

  constructor(readonly scenario: string) {}

  sent(body: string, at = Date.now()): void {
    const known = this.entries.get(body);
    if (known?.sentAt !== undefined) throw new Error(`${this.scenario}: body ${label(body)} sent twice (every send needs its own body)`);
    // Reports of several processes interleave: a consumer's may arrive before the producer's.
    if (known) known.sentAt = at;
    else this.entries.set(body, { sentAt: at, deliveries: [] });
  }

  acknowledged(body: string, id: string): void {
    this.entry(body).id = id;
  }

  refused(body: string, error: unknown): void {
    this.entry(body).refusal = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }

  delivered(consumer: string, message: { message: string; id: string; rc: number }, at = Date.now()): void {
    let entry = this.entries.get(message.message);
    if (!entry) {
      // Not sent yet as far as this ledger knows: the verdict calls it a stranger unless the send's report follows.
      entry = { deliveries: [] };
      this.entries.set(message.message, entry);
    }
    entry.deliveries.push({ consumer, id: message.id, rc: message.rc, at });
  }

  /** The handler `consumer` ran on `body` finished. */
  handled(consumer: string, body: string, at = Date.now()): void {
    this.latest(consumer, body, "handled").handledAt = at;
  }

  /** The delete after `consumer`'s handling of `body` resolved. */
  deleted(consumer: string, body: string, at = Date.now()): void {
    this.latest(consumer, body, "deleted").deletedAt = at;
  }

  /** Marks the end of the fault (recovery is measured from here); the latest call wins. */
  faultEnded(at = Date.now()): void {
    this.faultEnd = at;
  }

  /** The deliveries of one body, in order (none for a body not sent yet). */
  deliveriesOf(body: string): readonly Delivery[] {
    return this.entries.get(body)?.deliveries ?? [];
  }

  /** Messages handled (first handlings) at or after local epoch ms `since`. */
  handledSince(since: number): number {
    let count = 0;
    for (const { deliveries } of this.entries.values()) {
      const first = Math.min(...deliveries.map((delivery) => delivery.handledAt ?? Infinity));
      if (first >= since && first !== Infinity) count += 1;
    }
    return count;
  }

  /** Acknowledged sends whose body starts with `prefix` (a producer's name). */
  acknowledgedBy(prefix: string): number {
    return [...this.entries].filter(([body, entry]) => entry.id !== undefined && body.startsWith(`${prefix}-`)).length;
  }

  /** Handlings each consumer finished, by consumer name. */
  handledBy(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { deliveries } of this.entries.values()) {
      for (const { consumer, handledAt } of deliveries) if (handledAt !== undefined) counts[consumer] = (counts[consumer] ?? 0) + 1;
    }
    return counts;
  }

  /** Bodies acknowledged and not handled yet. */
  unhandled(): string[] {
    return [...this.entries].filter(([, entry]) => entry.id !== undefined && !isHandled(entry)).map(([body]) => label(body));
  }

  /** Each acknowledged body not handled yet, with its id and deliveries, for a failure message. */
  unhandledHistory(): string[] {
    return [...this.entries]
      .filter(([, entry]) => entry.id !== undefined && !isHandled(entry))
      .map(([body, entry]) => {
        const deliveries = entry.deliveries.map(
          (d) => `${d.consumer} rc ${d.rc}${d.handledAt ? " handled" : ""}${d.deletedAt ? " deleted" : ""}`,
        );
        return `${label(body)} (id ${entry.id}; deliveries: ${deliveries.join(", ") || "none"})`;
      });
  }

  /** The refusals of sends, by error text, with how often each came. */
  refusals(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const { refusal } of this.entries.values()) if (refusal !== undefined) counts.set(refusal, (counts.get(refusal) ?? 0) + 1);
    return counts;
  }

  /**
   * The verdict. `vtMs` is the visibility timeout consumers ran with; `clockSlackMs` widens the
   * "at least vt later" test for scenarios that stall the server (a stalled reply reaches its
   * handler late, so the local gap between two deliveries can be shorter than the server's).
   */
  verdict(options: { vtMs: number; clockSlackMs?: number }): Verdict {
    const { vtMs, clockSlackMs = 0 } = options;
    const violations: string[] = [];
    let sent = 0;
    let acknowledged = 0;
    let refused = 0;
    let handled = 0;
    let duplicated = 0;
    const duplicateCauses = { notDeleted: 0, vtExpired: 0 };
    const lost: string[] = [];
    let firstAfterFault: number | undefined;
    let lastFirstHandling = 0;
    for (const [body, entry] of this.entries) {
      if (entry.sentAt === undefined) {
        for (const { consumer, id } of entry.deliveries)
          violations.push(`${consumer} got ${id} with a body never sent: ${JSON.stringify(label(body))}`);
        continue;
      }
      sent += 1;
      if (entry.id !== undefined) acknowledged += 1;
      if (entry.refusal !== undefined) refused += 1;
      const deliveries = [...entry.deliveries].sort((a, b) => a.at - b.at);
      const handlings = deliveries.filter((delivery) => delivery.handledAt !== undefined).map((delivery) => delivery.handledAt!);
      if (handlings.length > 0) {
        handled += 1;
        if (entry.id !== undefined) lastFirstHandling = Math.max(lastFirstHandling, Math.min(...handlings));
        for (const at of handlings)
          if (this.faultEnd !== undefined && at >= this.faultEnd) firstAfterFault = Math.min(firstAfterFault ?? at, at);
      } else if (entry.id !== undefined) {
        lost.push(`${label(body)} (id ${entry.id}, delivered ${deliveries.length}x)`);
      }
      duplicated += Math.max(0, deliveries.length - 1);
      violations.push(...duplicateViolations(body, entry.id, deliveries, vtMs - clockSlackMs));
      for (let i = 1; i < deliveries.length; i++)
        duplicateCauses[deliveries[i - 1].deletedAt === undefined ? "notDeleted" : "vtExpired"] += 1;
    }
    const faultEnd = this.faultEnd;
    return {
      scenario: this.scenario,
      sent,
      acknowledged,
      refused,
      handled,
      lost,
      duplicated,
      duplicateCauses,
      violations,
      recoveryMs: faultEnd === undefined || firstAfterFault === undefined ? null : firstAfterFault - faultEnd,
      drainedMs: faultEnd === undefined || lost.length > 0 ? null : Math.max(0, lastFirstHandling - faultEnd),
    };
  }

  /** `consumer`'s last delivery of `body`, which it says it `did` something with. */
  private latest(consumer: string, body: string, did: string): Delivery {
    const delivery = this.entries
      .get(body)
      ?.deliveries.filter((each) => each.consumer === consumer)
      .pop();
    if (!delivery) throw new Error(`${this.scenario}: ${consumer} reported ${label(body)} ${did} without delivering it first`);
    return delivery;
  }

  private entry(body: string): Entry {
    const entry = this.entries.get(body);
    if (entry?.sentAt === undefined) throw new Error(`${this.scenario}: no send of ${label(body)} was recorded`);
    return entry;
  }
}

/** A body as reports show it: without the padding that fills memory. */
function label(body: string): string {
  return body.replace(/\.+$/, "");
}

function isHandled(entry: Entry): boolean {
  return entry.deliveries.some((delivery) => delivery.handledAt !== undefined);
}

/** Why the deliveries of one body after the first are not all explained by an expired vt. */
function duplicateViolations(body: string, ackedId: string | undefined, deliveries: Delivery[], minGapMs: number): string[] {
  const violations: string[] = [];
  const ids = new Set(deliveries.map((delivery) => delivery.id));
  if (ackedId !== undefined) ids.add(ackedId);
  if (ids.size > 1) violations.push(`${label(body)} stored under ${ids.size} ids (${[...ids].join(", ")}): one send wrote it twice`);
  for (let i = 1; i < deliveries.length; i++) {
    const before = deliveries[i - 1];
    const now = deliveries[i];
    const where = `${label(body)} (id ${now.id}) delivery ${i + 1} to ${now.consumer}`;
    if (now.rc <= before.rc) {
      violations.push(`${where} has rc ${now.rc} after rc ${before.rc}: the same receive handed out twice`);
      continue;
    }
    const gap = now.at - before.at;
    if (before.deletedAt !== undefined && gap < minGapMs) {
      violations.push(`${where} came ${gap} ms after delivery ${i}, whose delete was acknowledged: within vt`);
    }
  }
  return violations;
}

/** One line for a scenario's figures, and the same as a row of the table in docs/reliability.md. */
export function summaryLine(verdict: Verdict): string {
  return `${verdict.scenario}: sent ${verdict.sent}, acknowledged ${verdict.acknowledged}, handled ${verdict.handled}, lost ${verdict.lost.length}, duplicated ${verdict.duplicated}${causes(verdict)}, recovery ${ms(verdict.recoveryMs)}, drained ${ms(verdict.drainedMs)}`;
}

export function tableRow(verdict: Verdict): string {
  const cells = [
    verdict.scenario,
    verdict.sent,
    verdict.acknowledged,
    verdict.handled,
    verdict.lost.length,
    verdict.duplicated,
    ms(verdict.recoveryMs),
    ms(verdict.drainedMs),
  ];
  return `| ${cells.join(" | ")} |`;
}

export const TABLE_HEADER = [
  "| scenario | sent | acknowledged | handled | lost | duplicated | recovery (first handled) | drained |",
  "|---|---:|---:|---:|---:|---:|---:|---:|",
].join("\n");

function causes({ duplicated, duplicateCauses }: Verdict): string {
  if (duplicated === 0) return "";
  return ` (${duplicateCauses.notDeleted} after a handling never deleted, ${duplicateCauses.vtExpired} after a vt ran out mid-handling)`;
}

function ms(value: number | null): string {
  return value === null ? "-" : `${value} ms`;
}

/** Throws, listing what went wrong, unless nothing acknowledged was lost and every duplicate is allowed. */
export function assertHeld(verdict: Verdict): void {
  const problems: string[] = [];
  if (verdict.lost.length > 0) problems.push(`${verdict.lost.length} lost: ${verdict.lost.slice(0, 10).join("; ")}`);
  if (verdict.violations.length > 0)
    problems.push(`${verdict.violations.length} not allowed: ${verdict.violations.slice(0, 10).join("; ")}`);
  if (verdict.acknowledged === 0) problems.push("nothing was acknowledged: the scenario tested nothing");
  if (problems.length > 0) throw new Error(`${verdict.scenario}: ${problems.join(" | ")}`);
}
