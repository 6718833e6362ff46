/**
 * What an rsmq 0.12.4 consumer polling every 100 ms sends, reproduced command for command with
 * node-redis v4 (rsmq itself is only a dev dependency): per poll, rsmq's receiveMessage runs
 * MULTI HMGET TIME EXEC (its _getQueue) and then EVALSHA of its receive script, with the
 * timestamps in KEYS as rsmq passes them. The script text is rsmq 0.12.4's own, byte for byte,
 * so its SHA1 is the one rsmq loads.
 */
import type { RedisClientType } from "redis";

/** rsmq 0.12.4's receiveMessage script (index.js, `script_receiveMessage`). */
export const RSMQ_RECEIVE_SCRIPT =
  'local msg = redis.call("ZRANGEBYSCORE", KEYS[1], "-inf", KEYS[2], "LIMIT", "0", "1")\n\t\t\tif #msg == 0 then\n\t\t\t\treturn {}\n\t\t\tend\n\t\t\tredis.call("ZADD", KEYS[1], KEYS[3], msg[1])\n\t\t\tredis.call("HINCRBY", KEYS[1] .. ":Q", "totalrecv", 1)\n\t\t\tlocal mbody = redis.call("HGET", KEYS[1] .. ":Q", msg[1])\n\t\t\tlocal rc = redis.call("HINCRBY", KEYS[1] .. ":Q", msg[1] .. ":rc", 1)\n\t\t\tlocal o = {msg[1], mbody, rc}\n\t\t\tif rc==1 then\n\t\t\t\tredis.call("HSET", KEYS[1] .. ":Q", msg[1] .. ":fr", KEYS[2])\n\t\t\t\ttable.insert(o, KEYS[2])\n\t\t\telse\n\t\t\t\tlocal fr = redis.call("HGET", KEYS[1] .. ":Q", msg[1] .. ":fr")\n\t\t\t\ttable.insert(o, fr)\n\t\t\tend\n\t\t\treturn o';

/** The commands one rsmq 0.12.4 receive sends: MULTI, HMGET, TIME, EXEC, EVALSHA. */
export const RSMQ_RECEIVE_COMMANDS = 5;

export class RsmqStylePoll {
  private sha1: string | undefined;

  constructor(
    private readonly client: RedisClientType,
    private readonly ns: string,
    private readonly qname: string,
  ) {}

  /** SCRIPT LOAD, as rsmq does once when it connects. */
  async load(): Promise<void> {
    this.sha1 = String(await this.client.sendCommand(["SCRIPT", "LOAD", RSMQ_RECEIVE_SCRIPT]));
  }

  /** One rsmq 0.12.4 receiveMessage: resolves whether a message came back. */
  async receiveOnce(): Promise<boolean> {
    if (!this.sha1) throw new Error("RsmqStylePoll: load() first");
    const key = `${this.ns}:${this.qname}`;
    const [fields, time] = (await this.client
      .multi()
      .addCommand(["HMGET", `${key}:Q`, "vt", "delay", "maxsize"])
      .addCommand(["TIME"])
      .exec()) as [Array<string | null>, [string, string]];
    if (fields[0] === null) throw new Error(`queue ${this.qname} not found`);
    // rsmq's own arithmetic: seconds followed by the first three digits of the zero-padded microseconds.
    const ts = Number(time[0] + time[1].padStart(6, "0").slice(0, 3));
    const vt = parseInt(fields[0], 10);
    const reply = await this.client.sendCommand(["EVALSHA", this.sha1, "3", key, String(ts), String(ts + vt * 1000)]);
    return Array.isArray(reply) && reply.length > 0;
  }

  /** Polls for `ms`: a receive, and after an empty one a 100 ms pause. Resolves the number of polls. */
  async runFor(ms: number, intervalMs: number, signal?: AbortSignal, onPoll?: (polls: number) => void): Promise<number> {
    const end = Date.now() + ms;
    let polls = 0;
    while (Date.now() < end && !signal?.aborted) {
      const received = await this.receiveOnce();
      polls += 1;
      onPoll?.(polls);
      if (!received) await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(0, end - Date.now()))));
    }
    return polls;
  }
}
