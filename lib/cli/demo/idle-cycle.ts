/**
 * The idle Worker's commands over one whole idle cycle. With nothing due, a Worker sleeps for its
 * cap (maxIdleSleepMs, 30 s by default) and then polls once: a read-only look, or a receive when a
 * message (one in flight, say) could have become due meanwhile; its wake subscription's health
 * check (one PING) rides that poll. A window shorter than the cap holds that poll or not, by
 * chance, so a rate projected from it is 0 or several times too high. This window starts while
 * the Worker sleeps at its cap (a moment after the sleep began) and ends right after the poll that
 * ends the sleep: exactly one poll. Only a sleep that follows a look which carried the heartbeat
 * will do: the first idle sleep after a busy spell can hold the Worker's own beat (1.5 caps after
 * its last), a command a steadily idle Worker never sends, whose looks carry every beat. Its rate per hour is the cycle's count times the cycles in an
 * hour, one per cap (the window, a moment shorter than the cycle, would overstate it a little): the
 * commands it sends, 2 per 30 s, are the 240 an hour of the README's table.
 */
import type { RedisClientType } from "redis";
import type { Worker } from "../../worker/worker";
import { CliError } from "../errors";
import { duration } from "../format";
import { measure } from "../redis/command-stats";
import type { WindowCounts } from "../redis/command-stats";

export interface IdleCycle extends WindowCounts {
  /** The Worker's cap: one poll per this many ms when idle. */
  capMs: number;
  /** The Worker's polls in the window (one in all for a whole cycle): read-only looks, and receives. */
  looks: number;
  receives: number;
  /** Of `commands`, those the Worker's instance sent: one script call per poll, and the health check's PINGs (the rest ran inside the script). */
  sent: number;
  /** `commands` an hour: per cycle, times the cycles (one per cap) in an hour. */
  perHour: number;
  /** `sent` an hour, the same way: the figure the README's table gives. */
  sentPerHour: number;
  /**
   * Ms from the start of the Worker's sleep at its cap to the poll that ended it: a whole cycle,
   * whenever the window began (its start waits for the sleep to be seen, later on a busy machine).
   */
  cycleMs: number;
}

/** How much longer than its cap a cycle may take before the wait gives up. */
const SLACK_MS = 5000;

/** Follows a Worker's sleeps; attach it before the Worker starts so that no sleep is missed. */
export class IdleCycleWatch {
  private asleepAtCap = false;
  /** Whether the last poll was a look that carried the heartbeat: the next own beat is 1.5 caps off. */
  private afterBeatingLook = false;
  /** When the current sleep at the cap began (Date.now()). */
  private sleptAt = 0;
  private changed: (() => void) | undefined;

  constructor(
    private readonly worker: Worker,
    readonly capMs: number,
  ) {
    worker.on("sleep", (ms) => {
      const steady = ms >= capMs && this.afterBeatingLook;
      if (steady) this.sleptAt = Date.now();
      this.set(steady);
    });
    worker.on("wake", () => this.set(false));
    worker.on("look", (_ms, beat) => {
      this.afterBeatingLook = beat;
      this.set(false);
    });
    worker.on("receive", () => {
      this.afterBeatingLook = false;
      this.set(false);
    });
  }

  private set(asleepAtCap: boolean): void {
    this.asleepAtCap = asleepAtCap;
    this.changed?.();
  }

  /** Resolves once `condition` holds, checked after each change; rejects after `ms`; resolves at once on abort. */
  private until(condition: () => boolean, ms: number, what: string, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (error?: Error): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.changed = undefined;
        if (error) reject(error);
        else resolve();
      };
      const onAbort = (): void => done();
      const timer = setTimeout(() => done(new CliError(`the idle Worker did not ${what} within ${duration(ms)}`)), ms);
      signal.addEventListener("abort", onAbort, { once: true });
      this.changed = () => {
        if (condition()) done();
      };
      if (signal.aborted || condition()) done();
    });
  }

  /**
   * Counts the commands the server runs from a moment into the Worker's next sleep at its cap
   * until just after the poll that ends it. `onTick` as for `measure`.
   */
  async measure(client: RedisClientType, signal: AbortSignal, onTick?: (commands: number, ms: number) => void): Promise<IdleCycle> {
    const bound = this.capMs + SLACK_MS;
    await this.until(() => this.asleepAtCap, bound, "go to sleep", signal);
    const before = { ...this.worker.counters };
    const sleptAt = this.sleptAt;
    let polledAt = 0;
    const window = await measure(
      client,
      () => this.until(() => !this.asleepAtCap, bound, "poll", signal).then(() => void (polledAt = Date.now())),
      onTick,
    );
    const after = this.worker.counters;
    const looks = after.looks - before.looks;
    const receives = after.receives - before.receives;
    const sent = looks + receives + (window.byCommand.ping ?? 0);
    return {
      ...window,
      capMs: this.capMs,
      looks,
      receives,
      sent,
      perHour: perHourAtCap(window.commands, this.capMs),
      sentPerHour: perHourAtCap(sent, this.capMs),
      cycleMs: polledAt - sleptAt,
    };
  }
}

/** Commands an hour at `count` per idle cycle: one cycle per cap, so an hour holds 3,600,000 / capMs of them. */
export function perHourAtCap(count: number, capMs: number): number {
  return Math.round((count * 3_600_000) / capMs);
}
