/**
 * The Worker's idle look, with its queue's sweep folded in (docs/retention.md): the look
 * (lua/nextDue-2.lua, read-only) says when a sweep is wanted, and the Worker's next look is then a
 * chunk of lua/sweepExpired-2.lua, which answers what the look answers; the chunks go on, one per
 * look, until the pass is done. A tick still costs one command, so an idle Worker's cost stays
 * what it was: its look (or chunk) and one PING per cap. Moving parked messages to an expireTo
 * queue costs more, and only while there are expired messages to move.
 *
 * A look may carry the Worker's heartbeat (lookAndBeat, the same answer); a chunk cannot, so a
 * beat that falls on a chunk goes after it, one command more, only while a pass runs.
 */
import { idleLook } from "../operations/next-due";
import type { IdleLook } from "../operations/next-due";
import { lookAndBeat } from "../operations/consumer-beat";
import type { ConsumerBeat } from "../operations/consumer-beat";
import { sweepExpiredChunk } from "../operations/sweep-expired";
import { moveExpired } from "./expired-moves";
import type { ExpiryOwner } from "./expired-moves";
import { sweeperToken } from "./sweep";
import type { ReceiveBlock } from "../operations/receive-block";

export class IdleSweeper {
  private readonly token = sweeperToken();
  /** The rank of the next chunk while a pass runs; undefined between passes. */
  private cursor: number | undefined;

  /**
   * @param lockMs how long the lock holds without a next chunk: longer than the Worker's longest
   *   sleep, since its chunks come one per look
   * @param looked told of each look's whole answer (a chunk's is not one): the Worker's schedule firer reads it
   */
  constructor(
    private readonly owner: ExpiryOwner,
    private readonly qname: string,
    private readonly lockMs: number,
    private readonly looked: (look: IdleLook) => void = () => undefined,
  ) {}

  /**
   * One command: a look (writing `beat` when given), or a chunk of the sweep when one is wanted;
   * resolves the look's answer (a ReceiveBlock while a pause, or a rate limit with a message due,
   * holds receives back).
   */
  async look(beat?: ConsumerBeat): Promise<number | null | ReceiveBlock> {
    const { owner, qname } = this;
    if (this.cursor === undefined) {
      const { layout } = owner;
      const look = await owner.run(() => (beat ? lookAndBeat(layout, qname, beat) : idleLook(layout, qname)));
      if (look.sweepWanted) this.cursor = 0;
      this.looked(look);
      return look.nextDueMs;
    }
    const cursor = this.cursor;
    const chunk = await owner.run(() => sweepExpiredChunk(owner.layout, qname, this.token, cursor, this.lockMs));
    // The beat after the chunk, not beside it: one call in flight at a time, and a failed chunk
    // sends no beat whose failure nobody would await.
    if (beat) this.looked(await owner.run(() => lookAndBeat(owner.layout, qname, beat)));
    this.cursor = chunk.state === "more" ? chunk.next : undefined;
    await moveExpired(owner, qname, chunk.expired);
    return chunk.nextDueMs;
  }
}
