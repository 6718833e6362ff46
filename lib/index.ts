/**
 * The package entry. `require("rsmq-next")` returns the {@link RedisSMQ} class itself, as
 * `require("rsmq")` does; `import RedisSMQ from "rsmq-next"` works from TypeScript and ESM, and the
 * public types are importable by name or as `RedisSMQ.QueueMessage`, as with rsmq. The class also
 * carries {@link Worker}, {@link Scheduler}, {@link RetryPolicy}, {@link PoisonError},
 * {@link RateLimitError} and {@link MessageCancelledError} as static properties.
 *
 * @example
 * ```ts
 * const RedisSMQ = require("rsmq-next");
 * const { Worker, PoisonError } = RedisSMQ;
 * // ESM: import RedisSMQ, { Worker, PoisonError } from "rsmq-next";
 *
 * const rsmq = new RedisSMQ({ host: "127.0.0.1", port: 6379 });
 * await rsmq.createQueueAsync({ qname: "emails" });
 * await rsmq.sendMessageAsync({ qname: "emails", message: "hello" });
 * new Worker(rsmq, { qname: "emails", handler: async (message) => console.log(message.message) }).start();
 * ```
 *
 * @packageDocumentation
 */
import { RedisSMQ as RedisSMQClass } from "./redis-smq";
import { Worker as WorkerClass } from "./worker/worker";
import { Scheduler as SchedulerClass } from "./schedules/scheduler";
import type * as SchedulerTypes from "./schedules/scheduler";
import { PoisonError as PoisonErrorClass } from "./retry/poison-error";
import { RateLimitError as RateLimitErrorClass } from "./retry/rate-limit-error";
import { MessageCancelledError as MessageCancelledErrorClass } from "./worker/message-cancelled-error";
import { RetryPolicy as RetryPolicyClass } from "./retry/retry-policy";
import type * as RetryTypes from "./retry/retry-policy";
import type * as WorkerTypes from "./worker/worker-options";
import type { WorkerEvents as WorkerEventMap } from "./worker/worker";
import type * as WorkerEventTypes from "./worker/worker-events";
import type { WorkerStats as WorkerCounters } from "./worker/worker-stats";
import type * as Types from "./types";
import type { RedisSMQEvents as Events } from "./redis-smq-events";
import type * as Emitter from "./typed-emitter";
import type { RsmqErrorCode as ErrorCode, RsmqErrorName as ErrorName } from "./errors/rsmq-errors";

// The class doubles as the module object, so default and named imports find it under both names.
Object.defineProperty(RedisSMQClass, "default", { value: RedisSMQClass });
Object.defineProperty(RedisSMQClass, "RedisSMQ", { value: RedisSMQClass });
Object.defineProperty(RedisSMQClass, "Worker", { value: WorkerClass });
Object.defineProperty(RedisSMQClass, "Scheduler", { value: SchedulerClass });
Object.defineProperty(RedisSMQClass, "RetryPolicy", { value: RetryPolicyClass });
Object.defineProperty(RedisSMQClass, "PoisonError", { value: PoisonErrorClass });
Object.defineProperty(RedisSMQClass, "RateLimitError", { value: RateLimitErrorClass });
Object.defineProperty(RedisSMQClass, "MessageCancelledError", { value: MessageCancelledErrorClass });

declare namespace RedisSMQ {
  /** The class as a type, for `import { RedisSMQ } from "rsmq-next"`. */
  export type RedisSMQ = RedisSMQClass;
  export type Callback<T> = Types.Callback<T>;
  export type ConstructorOptions = Types.ConstructorOptions;
  export type TelemetryOptions = Types.TelemetryOptions;
  export type CreateQueueOptions = Types.CreateQueueOptions;
  export type DeleteQueueOptions = Types.DeleteQueueOptions;
  export type PurgeQueueOptions = Types.PurgeQueueOptions;
  export type GetQueueAttributesOptions = Types.GetQueueAttributesOptions;
  export type SetQueueAttributesOptions = Types.SetQueueAttributesOptions;
  export type PauseQueueOptions = Types.PauseQueueOptions;
  export type ResumeQueueOptions = Types.ResumeQueueOptions;
  export type SetRateLimitOptions = Types.SetRateLimitOptions;
  export type RemoveRateLimitOptions = Types.RemoveRateLimitOptions;
  export type RateLimitQueueOptions = Types.RateLimitQueueOptions;
  export type SetConcurrencyOptions = Types.SetConcurrencyOptions;
  export type RemoveConcurrencyOptions = Types.RemoveConcurrencyOptions;
  export type RateLimit = Types.RateLimit;
  export type QueuePause = Types.QueuePause;
  export type QueueRateLimit = Types.QueueRateLimit;
  export type ListConsumersOptions = Types.ListConsumersOptions;
  export type ConsumerInfo = Types.ConsumerInfo;
  export type UpsertScheduleOptions = Types.UpsertScheduleOptions;
  export type ScheduleNameOptions = Types.ScheduleNameOptions;
  export type ListSchedulesOptions = Types.ListSchedulesOptions;
  export type ScheduleInfo = Types.ScheduleInfo;
  export type ScheduledMessageInfo = Types.ScheduledMessageInfo;
  export type ScheduleCatchup = Types.ScheduleCatchup;
  export type ScheduleOverlap = Types.ScheduleOverlap;
  export type SendMessageOptions = Types.SendMessageOptions;
  export type SendMessagesEntry = Types.SendMessagesEntry;
  export type SendMessagesOptions = Types.SendMessagesOptions;
  export type SentEntry = Types.SentEntry;
  export type ReceiveMessageOptions = Types.ReceiveMessageOptions;
  export type PopMessageOptions = Types.PopMessageOptions;
  export type DeleteMessageOptions = Types.DeleteMessageOptions;
  export type ChangeMessageVisibilityOptions = Types.ChangeMessageVisibilityOptions;
  export type ChangeMessagesVisibilityOptions = Types.ChangeMessagesVisibilityOptions;
  export type QueueMessage = Types.QueueMessage;
  export type QueueAttributes = Types.QueueAttributes;
  export type ReceiveOrNextDue = Types.ReceiveOrNextDue;
  export type ReceiveBlock = Types.ReceiveBlock;
  export type RedisSMQEvents = Events;
  export type TypedEventEmitter<Events extends { [E in keyof Events]: unknown[] }> = Emitter.TypedEventEmitter<Events>;
  export type ReceiveMessagesOptions = Types.ReceiveMessagesOptions;
  export type ReceivedMessages = Types.ReceivedMessages;
  export type DeleteMessagesOptions = Types.DeleteMessagesOptions;
  export type DeleteAndReceiveOptions = Types.DeleteAndReceiveOptions;
  export type DeleteAndReceiveMessagesOptions = Types.DeleteAndReceiveMessagesOptions;
  export type DeletedAndReceivedMessage = Types.DeletedAndReceivedMessage;
  export type DeletedAndReceivedMessages = Types.DeletedAndReceivedMessages;
  /** The Worker class as a type, for `import { Worker } from "rsmq-next"`. */
  export type Worker = WorkerClass;
  export type WorkerOptions = WorkerTypes.WorkerOptions;
  export type MessageHandler = WorkerTypes.MessageHandler;
  export type HandlerContext = WorkerTypes.HandlerContext;
  export type WorkerEvents = WorkerEventMap;
  export type GaveUpInfo = WorkerEventTypes.GaveUpInfo;
  export type AbandonedOutcome = WorkerEventTypes.AbandonedOutcome;
  export type WorkerStats = WorkerCounters;
  /** The Scheduler class as a type, for `import { Scheduler } from "rsmq-next"`. */
  export type Scheduler = SchedulerClass;
  export type SchedulerOptions = SchedulerTypes.SchedulerOptions;
  export type SchedulerEvents = SchedulerTypes.SchedulerEvents;
  export type ScheduleFired = SchedulerTypes.ScheduleFired;
  export type ScheduleSkipped = SchedulerTypes.ScheduleSkipped;
  /** The RetryPolicy class as a type. */
  export type RetryPolicy = RetryPolicyClass;
  /** The PoisonError class as a type. */
  export type PoisonError = PoisonErrorClass;
  /** The RateLimitError class as a type. */
  export type RateLimitError = RateLimitErrorClass;
  /** The MessageCancelledError class as a type. */
  export type MessageCancelledError = MessageCancelledErrorClass;
  export type RetryPolicyOptions = RetryTypes.RetryPolicyOptions;
  export type RetryDecision = RetryTypes.RetryDecision;
  export type StopReason = RetryTypes.StopReason;
  export type Jitter = RetryTypes.Jitter;
  export type DeadLetterInfo = Types.DeadLetterInfo;
  export type PeekedMessage = Types.PeekedMessage;
  export type PeekDeadLettersOptions = Types.PeekDeadLettersOptions;
  export type PeekMessagesOptions = Types.PeekMessagesOptions;
  export type PeekMessageOptions = Types.PeekMessageOptions;
  export type MessageWithState = Types.MessageWithState;
  export type BrowseMessagesOptions = Types.BrowseMessagesOptions;
  export type BrowseMessagesPage = Types.BrowseMessagesPage;
  export type BrowsedQueueMessage = Types.BrowsedQueueMessage;
  export type MessageAttributes = Types.MessageAttributes;
  export type AttributeValue = Types.AttributeValue;
  export type MessageState = Types.MessageState;
  export type RedriveOptions = Types.RedriveOptions;
  export type DoctorOptions = Types.DoctorOptions;
  export type DoctorReport = Types.DoctorReport;
  export type DoctorFinding = Types.DoctorFinding;
  export type DoctorFindingKind = Types.DoctorFindingKind;
  export type DoctorExample = Types.DoctorExample;
  export type SweepExpiredOptions = Types.SweepExpiredOptions;
  export type SweepResult = Types.SweepResult;
  export type RsmqErrorName = ErrorName;
  export type RsmqErrorCode = ErrorCode;
}

type RedisSMQ = RedisSMQClass;
const RedisSMQ = RedisSMQClass as typeof RedisSMQClass & {
  /** The class itself, for `import RedisSMQ from "rsmq-next"` without esModuleInterop. */
  readonly default: typeof RedisSMQClass;
  /** The class itself, for `import { RedisSMQ } from "rsmq-next"`. */
  readonly RedisSMQ: typeof RedisSMQClass;
  /** The consumer that sleeps until the next message is due: `const { Worker } = require("rsmq-next")`. */
  readonly Worker: typeof WorkerClass;
  /** Fires the schedules of its queues from a process that need not consume them: `new RedisSMQ.Scheduler(rsmq, { qnames })`. */
  readonly Scheduler: typeof SchedulerClass;
  /** When a failed message is retried and when it stops. */
  readonly RetryPolicy: typeof RetryPolicyClass;
  /** Throw it from a handler to stop retrying at once. */
  readonly PoisonError: typeof PoisonErrorClass;
  /** Throw it from a handler on a downstream 429: the message comes back after the block, its delivery not spent. */
  readonly RateLimitError: typeof RateLimitErrorClass;
  /** The reason a handler's signal aborts with when its message was deleted, or received again, elsewhere. */
  readonly MessageCancelledError: typeof MessageCancelledErrorClass;
};

export = RedisSMQ;
