/**
 * What the doctor needs of a RedisSMQ instance: where the namespace's keys are, a way to run the
 * operations it builds, plain commands for what no script may do (SCAN over a node, the registry
 * in another cluster slot), and the repairs other features add to a fix.
 */
import type { KeyLayout } from "../keys";
import type { Operation } from "../operations/operation";
import type { DoctorFindingKind } from "../types";

/**
 * A repair that is not the doctor's own, run on each queue after the doctor's repairs, with `fix`
 * only. The retention sweep (removing expired messages) is one: the instance passes it in
 * {@link DoctorPort.queueRepairs}.
 */
export interface QueueRepair {
  /** The kind its repairs are reported under. */
  readonly kind: DoctorFindingKind;
  /** Repairs one queue; resolves how many things it repaired (0: nothing to do). */
  repair(qname: string): Promise<number>;
}

export interface DoctorPort {
  /** The namespace, without the trailing colon. */
  readonly ns: string;
  readonly layout: KeyLayout;
  /** Builds and runs an operation on the instance's connection. */
  run<T>(build: () => Operation<T>): Promise<T>;
  /** A plain command (SMEMBERS, SCAN, CLUSTER SLOTS, SADD, SREM); `key` routes it in Redis Cluster. */
  command(args: string[], key?: string): Promise<unknown>;
  /** Run on each queue, in order, when fixing (see {@link QueueRepair}). */
  readonly queueRepairs: readonly QueueRepair[];
}
