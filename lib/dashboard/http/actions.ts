/**
 * The mutating routes, each one call of rsmq's public *Async methods (so rsmq checks the input,
 * before any round trip), counted in the cost meter where it is sent.
 */
import type { RedisSMQ } from "../../redis-smq";
import type { RedriveOptions } from "../../types";
import type { CostMeter } from "../../queue-state/cost-meter";
import { MAX_BATCH } from "../../operations/rsmq-input-rules";
import { HttpError } from "./http-error";
import { errorAnswer } from "./error-status";
import type { RouteName } from "./routes";

/** What an action answers: a status and the JSON. */
export interface ActionAnswer {
  status: number;
  body: unknown;
}

/** Redrive's options with the filters by group (reason and last error) the dead-letter page uses. */
type GroupRedriveOptions = RedriveOptions & { reason?: unknown; error?: unknown };

export type ActionName = Extract<
  RouteName,
  "createQueue" | "setAttributes" | "sendMessage" | "makeVisible" | "deleteMessage" | "redrive" | "deleteQueue"
>;

/** The fields of a body that are given (undefined and null mean "not given", as rsmq reads them). */
function given(body: Record<string, unknown>, ...names: string[]): Record<string, unknown> {
  const picked: Record<string, unknown> = {};
  for (const name of names) if (body[name] !== undefined && body[name] !== null) picked[name] = body[name];
  return picked;
}

/** Runs one mutation. */
export class Actions {
  constructor(
    private readonly rsmq: RedisSMQ,
    private readonly cost: CostMeter,
  ) {}

  async run(name: ActionName, qname: string, id: string, body: Record<string, unknown>): Promise<ActionAnswer> {
    switch (name) {
      case "createQueue": {
        const options = given(body, "qname", "vt", "delay", "maxsize") as { qname: string };
        await this.counted(1, this.rsmq.createQueueAsync(options));
        return { status: 201, body: { qname: options.qname } };
      }
      case "setAttributes": {
        const attributes = await this.counted(1, this.rsmq.setQueueAttributesAsync({ ...given(body, "vt", "delay", "maxsize"), qname }));
        return { status: 200, body: { qname, attributes } };
      }
      case "sendMessage": {
        const sent = await this.counted(1, this.rsmq.sendMessageAsync({ ...given(body, "delay"), qname, message: body.message as string }));
        return { status: 201, body: { id: sent } };
      }
      case "makeVisible": {
        const found = await this.counted(1, this.rsmq.changeMessageVisibilityAsync({ qname, id, vt: 0 }));
        if (found === 0) throw messageNotFound(qname, id);
        return { status: 200, body: { id } };
      }
      case "deleteMessage": {
        const found = await this.counted(1, this.rsmq.deleteMessageAsync({ qname, id }));
        if (found === 0) throw messageNotFound(qname, id);
        return { status: 200, body: { id } };
      }
      case "redrive":
        return { status: 200, body: { moved: await this.redrive(qname, body) } };
      case "deleteQueue": {
        if (body.confirm !== qname) {
          throw new HttpError(400, "confirmRequired", `Deleting a queue needs its name to confirm: send { "confirm": "${qname}" }.`);
        }
        await this.counted(1, this.rsmq.deleteQueueAsync({ qname }));
        return { status: 200, body: { qname } };
      }
    }
  }

  private async redrive(from: string, body: Record<string, unknown>): Promise<number> {
    const options: GroupRedriveOptions = { ...given(body, "to", "reason", "error"), from };
    let moved: number;
    try {
      moved = await this.rsmq.redriveAsync(options);
    } catch (error) {
      if (reachedRedis(error)) this.cost.add(1);
      throw error;
    }
    // Estimated, not counted: redrive reports only how many moved. It reads a page of up to
    // MAX_BATCH and moves it with one more script (three across cluster slots), until a page
    // comes back short: two commands per page, plus the last, short read.
    this.cost.add(2 * Math.ceil(moved / MAX_BATCH) + 1);
    return moved;
  }

  /** Counts `commands` once the call was sent: not when rsmq refused the input before any round trip. */
  private async counted<T>(commands: number, call: Promise<T>): Promise<T> {
    try {
      const result = await call;
      this.cost.add(commands);
      return result;
    } catch (error) {
      if (reachedRedis(error)) this.cost.add(commands);
      throw error;
    }
  }
}

/** Bad input (400) is refused before any round trip; any other failure came from Redis or on the way to it. */
function reachedRedis(error: unknown): boolean {
  return errorAnswer(error).status !== 400;
}

function messageNotFound(qname: string, id: string): HttpError {
  return new HttpError(404, "messageNotFound", `No message ${id} in queue ${qname}: it was deleted or received and deleted.`);
}
