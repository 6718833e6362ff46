import { failIfCode } from "./operation";
import type { QueueAttributes } from "../types";

/** Reads `{ {vt, delay, maxsize, totalrecv, totalsent, created, modified}, msgs, hiddenmsgs }`. */
export function parseAttributes(reply: unknown): QueueAttributes {
  failIfCode(reply);
  const [fields, msgs, hiddenmsgs] = reply as [Array<string | null>, number, number];
  const int = (index: number): number => parseInt(fields[index] as string, 10);
  return {
    vt: int(0),
    delay: int(1),
    maxsize: int(2),
    totalrecv: int(3) || 0,
    totalsent: int(4) || 0,
    created: int(5),
    modified: int(6),
    msgs,
    hiddenmsgs,
  };
}
