/**
 * The range a "due in N ms" reply can take, from the server's clock read around the calls, instead
 * of a fixed second of slack that a stalled machine overruns. A due time set at server time t
 * (the send, or the receive that hid the message) for N ms later, and reported at server time u,
 * is t + N - u ms away; with the clock read at `open()` (before t) and at `range()` (after u),
 * 0 <= u - t <= elapsed, so the reply lies in [N - elapsed, N] (never below 0). On an unloaded
 * machine that is a few ms wide; under a stall it widens by the stall, and no more.
 */
import type { RedisClientType, RedisClusterType } from "redis";
import { serverNowMs } from "./inspect";

export class DueWindow {
  private constructor(
    private readonly client: RedisClientType | RedisClusterType,
    private readonly openedAtMs: number,
  ) {}

  /** Reads the server clock: call it before the call that sets the due time. */
  static async open(client: RedisClientType | RedisClusterType): Promise<DueWindow> {
    return new DueWindow(client, await serverNowMs(client));
  }

  /** Reads the server clock again (after the reply) and returns [low, high] for a due time `dueInMs` after the set. */
  async range(dueInMs: number): Promise<[number, number]> {
    const elapsedMs = (await serverNowMs(this.client)) - this.openedAtMs;
    return [Math.max(0, dueInMs - elapsedMs), dueInMs];
  }
}
