/**
 * The Worker's QueuePort on a RedisSMQ instance: the one module where the Worker reaches the
 * instance's internals. Each call builds its operation and runs it on the instance's connection
 * (validation, routing and retries included; deletes made together go out as one deleteMessages);
 * wakes come from the in-process hub and the instance's shared realtime subscriber, whose health
 * check rides each poll (a receive or a look) of a Worker that listens on it.
 */
import { deleteMessages } from "../operations/delete-messages";
import { deleteAndReceiveMessages } from "../operations/delete-and-receive";
import { hideMessage } from "../operations/hide-message";
import { rateLimitBounce } from "../operations/rate-limit-bounce";
import { lookAndBeat, removeConsumer } from "../operations/consumer-beat";
import { receiveMessages } from "../operations/receive-message";
import type { ReceivedBatch } from "../operations/receive-message";
import { DeadLetterMover } from "../dead-letters/dead-letter-mover";
import { movingExpired } from "../retention/expired-moves";
import { IdleSweeper } from "../retention/idle-sweeper";
import { SWEEP_LOCK_MS } from "../retention/sweep";
import { internalsOf } from "../internals";
import type { RedisSMQ } from "../redis-smq";
import { onQueueActivity } from "../wakes/wake-hub";
import { DeleteBatcher } from "./delete-batcher";
import type { QueuePort } from "./queue-port";
import type { ResolvedWorkerOptions } from "./worker-option-table";
import { observedWorkerReceive, observing } from "./worker-telemetry";
import type { Carriers } from "./worker-telemetry";
import { redisScheduleStore } from "../schedules/schedule-store";
import type { IdleLook } from "../operations/next-due";

/** The Worker's receives read the schedule in each message's attributes, so a handler sees `message.schedule`. */
const WITH_SCHEDULE = true;

/** The port for the worker's queue; throws for anything that is not a RedisSMQ instance. */
export function redisQueuePort(
  rsmq: RedisSMQ,
  options: Pick<ResolvedWorkerOptions, "qname" | "vt" | "deadLetterQueue" | "maxIdleSleepMs" | "realtimeWakes" | "schedules">,
): QueuePort {
  const internals = internalsOf(rsmq);
  const { ns, layout } = internals;
  const { qname, vt, deadLetterQueue, maxIdleSleepMs, realtimeWakes } = options;
  // What each look reads of the queue's schedules goes to the Worker's firer (WorkerSchedules.watchDue).
  let scheduleDue: (ms: number | undefined) => void = () => undefined;
  const looked = (look: IdleLook): void => scheduleDue(look.scheduleDueMs);
  // Sent with the poll, in the same tick: an idle instance's subscription costs one PING per cap.
  const tick = realtimeWakes ? () => internals.realtimeWakes().tick(maxIdleSleepMs) : () => undefined;
  const mover = new DeadLetterMover(internals);
  // Its chunks come one per look, so its lock outlasts the longest sleep between two.
  const sweeper = new IdleSweeper(internals, qname, Math.max(SWEEP_LOCK_MS, 2 * maxIdleSleepMs), looked);
  const { wakeChannel, realtimeChannel } = layout.queue(qname);
  // Handlers of one batch finish together: their deletes go out as one deleteMessages.
  const deletes = new DeleteBatcher((ids, rcs) => internals.run(() => deleteMessages(layout, { qname, ids, rcs })));
  const moveExpired = movingExpired<ReceivedBatch>(internals, qname);
  // Filled only while telemetry records or traces: what each message in hand carries.
  const carriers: Carriers = new WeakMap();
  return {
    receive: (count) => {
      tick();
      const receiving = observing(internals.telemetry)
        ? observedWorkerReceive(internals, qname, vt, count, carriers)
        : internals.run(() => receiveMessages(layout, { qname, vt }, count, false, WITH_SCHEDULE));
      // Expired messages the script parked go to the queue's expireTo before the batch is handled.
      return receiving.then((batch) => (batch.expired === undefined ? batch : moveExpired(batch)));
    },
    deleteAndReceive: (ids, rcs, count) => {
      tick();
      const options = { qname, ids, rcs, vt };
      // As a receive alone: what the receive part parked goes to expireTo before the batch is handled.
      return internals
        .run(() => deleteAndReceiveMessages(layout, options, count, false, WITH_SCHEDULE))
        .then((result) => (result.batch.expired === undefined ? result : moveExpired(result.batch).then(() => result)));
    },
    get combinesDeletes() {
      return !observing(internals.telemetry);
    },
    nextDue: (beat) => {
      tick();
      // The look, or a chunk of the queue's sweep when the last look said one is wanted: one command either way
      // (with a beat, the look writes it; a chunk goes with a beat of its own).
      // A block (ReceiveBlock) comes through as it is: the Worker's loop reads it (QueuePort.nextDue).
      return sweeper.look(beat);
    },
    // Not through the sweeper: a beat of its own must not take a chunk of a pass the looks run.
    beat: (beat) => internals.run(() => lookAndBeat(layout, qname, beat)).then(looked),
    removeConsumer: (workerId) => internals.run(() => removeConsumer(layout, qname, workerId)),
    remove: (id, rc) => deletes.remove(id, rc),
    hide: (id, ms, rc, release) => internals.run(() => hideMessage(layout, qname, id, ms, rc, release)),
    rateLimitBounce: (id, ms, rc) => internals.run(() => rateLimitBounce(layout, qname, id, ms, rc)),
    moveToDlq: async (message, why) => {
      if (deadLetterQueue === undefined) throw new Error(`rsmq-next: the Worker of "${qname}" has no dead-letter queue (onStop: "delete")`);
      return mover.move(qname, deadLetterQueue, message, why, true);
    },
    onWake: (listener) => onQueueActivity(ns, qname, listener),
    wakeChannels: [wakeChannel, realtimeChannel],
    subscribeWakes: (channel, listener) => internals.realtimeWakes().subscribe(channel, listener),
    get connected() {
      return rsmq.connected;
    },
    telemetry: internals.telemetry,
    carrierOf: (message) => carriers.get(message),
    schedules: options.schedules
      ? {
          ...redisScheduleStore(internals, qname),
          watchDue: (listener) => void (scheduleDue = listener),
        }
      : undefined,
    enlist: (worker) => {
      internals.workers.add(worker);
      return () => void internals.workers.delete(worker);
    },
  };
}
