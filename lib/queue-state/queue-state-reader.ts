/**
 * Reads the queue state the metrics show, on demand only: every queue of the namespace (or the
 * queues of a list), with what the schedule metrics show of their schedules, through the
 * QueueBoard the dashboard reads with too, one script call for all of them on one server (a second
 * when the registry names a queue the first did not know), the registry and one per queue in Redis
 * Cluster. Nothing is read on a timer: a scrape reads, and nothing else does.
 * Reads asked for while one is under way share it, so the families of one scrape (and scrapes
 * that overlap) cost one reading.
 */
import { internalsOf } from "../internals";
import { CostMeter } from "./cost-meter";
import { QueueBoard } from "./queue-board";
import type { ConnectedQueues } from "./queue-board";
import type { Reading } from "./read-shapes";

export interface QueueStateReaderOptions {
  /** The queues to read; undefined: every queue of the namespace. */
  queues?: readonly string[];
  /** Where the commands sent are counted (the dashboard's meter); a meter of its own when absent. */
  cost?: CostMeter;
}

export class QueueStateReader {
  private readonly board: QueueBoard;
  private readonly queues: readonly string[] | undefined;
  private underWay: Promise<Reading> | undefined;

  /** `rsmq`: a RedisSMQ instance (its internals are looked up; a look-alike throws a TypeError). */
  constructor(rsmq: ConnectedQueues, options: QueueStateReaderOptions = {}) {
    this.board = new QueueBoard(rsmq, internalsOf(rsmq), { cost: options.cost ?? new CostMeter() });
    this.queues = options.queues;
  }

  /**
   * One reading, with the schedules of the queues that have any (read by the same call), shared
   * with any under way; rejects when Redis could not be read.
   */
  read(): Promise<Reading> {
    if (!this.underWay) {
      const reading = this.queues ? this.board.readQueuesNamed(this.queues) : this.board.readQueues();
      this.underWay = reading.finally(() => {
        this.underWay = undefined;
      });
    }
    return this.underWay;
  }
}
