/**
 * What the dashboard costs Redis, counted where it sends each command (not at the server, which
 * cannot tell the dashboard's commands from the application's): a total, and a rate over the last
 * minute in one-second buckets, so the meter reads 0 a minute after the last tab closed.
 */
import type { DashboardCost } from "./read-shapes";

const WINDOW_SECONDS = 60;

export class CostMeter {
  private total = 0;
  /** Commands per second of the last WINDOW_SECONDS seconds, by whole second of `now()`. */
  private readonly buckets = new Map<number, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts `commands` sent to Redis just now. */
  add(commands: number): void {
    if (commands <= 0) return;
    this.total += commands;
    const second = Math.floor(this.now() / 1000);
    this.buckets.set(second, (this.buckets.get(second) ?? 0) + commands);
    this.forgetBefore(second - WINDOW_SECONDS);
  }

  /** The meter as the API shows it, with `streams` live-update streams open. */
  reading(streams: number): DashboardCost {
    const second = Math.floor(this.now() / 1000);
    this.forgetBefore(second - WINDOW_SECONDS);
    let recent = 0;
    for (const count of this.buckets.values()) recent += count;
    return { commandsPerSecond: recent / WINDOW_SECONDS, commands: this.total, streams };
  }

  private forgetBefore(second: number): void {
    for (const bucket of this.buckets.keys()) if (bucket <= second) this.buckets.delete(bucket);
  }
}
