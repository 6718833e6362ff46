/**
 * RedisSMQ: rsmq 0.12.4's API and data layout on node-redis v4, every queue operation one script
 * call (one command, one round trip) that reads the queue's settings and the server's clock itself.
 * This file is the instance's life (connect, close, quit); its queue operations are declared in
 * methods/queue-methods.ts and built from their descriptors (methods/registry.ts).
 */
import type { RedisClientType } from "redis";
import { openTransport } from "./transports/open-transport";
import type { Transport } from "./transports/transport";
import { connectionClosedError } from "./errors/connection-closed";
import { toCallback } from "./callbacks";
import { handOutEveryMethod } from "./hand-out";
import { attachMethods } from "./methods/attach-methods";
import type { Operation } from "./operations/operation";
import { attachInternals } from "./internals";
import type { RedisSMQInternals, StoppableWorker } from "./internals";
import { resolveConstructorOptions } from "./options/constructor-options";
import { connectionWarning, ReportOnce } from "./errors/report-once";
import { OperationRunner } from "./operations/operation-runner";
import { explainRefusal } from "./errors/refusals";
import { RealtimeWakes } from "./wakes/realtime-wakes";
import { sendNotification } from "./operations/send-notification";
import { TypedEventEmitter } from "./typed-emitter";
import { TelemetryHub } from "./telemetry/telemetry-hub";
import { resolveTelemetry } from "./telemetry/telemetry-options";
import { spanServerAddress } from "./telemetry/server-address";
import { startOpenTelemetry } from "./telemetry/otel/start-telemetry";
import type { QueueMethods } from "./methods/queue-methods";
import { SCRIPT_LOAD_EVENTS } from "./redis-smq-events";
import type { RedisSMQEvents } from "./redis-smq-events";
import type { Callback, ConstructorOptions } from "./types";

export type { RedisSMQEvents } from "./redis-smq-events";

// The queue operations: declared in QueueMethods, set by the constructor (attachMethods).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface RedisSMQ extends QueueMethods {}

/**
 * A client of rsmq queues: rsmq 0.12.4's API, errors and Redis data layout, so rsmq and rsmq-next
 * clients share the same queues, with every queue operation one script call (one command, one
 * round trip) that reads the queue's settings and the server's clock itself.
 *
 * Every operation comes twice: `sendMessage(options, callback)` in rsmq's callback style (which
 * returns a promise when no callback is given) and `sendMessageAsync(options)`. Methods are bound,
 * so `const { sendMessage } = rsmq` works. Errors carry rsmq's `name` (see {@link RsmqErrorName}).
 * Bad input is refused before anything is sent.
 *
 * @example
 * const RedisSMQ = require("rsmq-next");
 * const rsmq = new RedisSMQ({ host: "127.0.0.1", port: 6379, ns: "rsmq" });
 * await rsmq.createQueueAsync({ qname: "jobs" });
 * const id = await rsmq.sendMessageAsync({ qname: "jobs", message: "hello" });
 * const message = await rsmq.receiveMessageAsync({ qname: "jobs", vt: 30 });
 * if ("id" in message) await rsmq.deleteMessageAsync({ qname: "jobs", id: message.id });
 * await rsmq.quitAsync();
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class RedisSMQ extends TypedEventEmitter<RedisSMQEvents> {
  /** The key prefix including the trailing colon, as rsmq exposes it. */
  readonly redisns: string;
  /** Whether sendMessage publishes on `<ns>:rt:<qname>`. */
  readonly realtime: boolean;
  private readonly transport: Transport;
  /** What the Worker, dead letters, redrive and the CLI use: namespace, key layout, run(build), wakes. */
  private readonly internals: RedisSMQInternals;
  /** Opens its connection on the first wake subscription; after quitAsync() it opens none. */
  private readonly subscriber: RealtimeWakes;
  /**
   * Lasting problems that no call fails for (a refused realtime notification), each told once;
   * connection errors with no `error` listener: one process warning per error name and code.
   */
  private readonly problems = new ReportOnce(this, { code: "RSMQ_NEXT_CONNECTION_ERROR", describe: connectionWarning });
  private readonly workers = new Set<StoppableWorker>();
  /** Set once the user closed rsmq.redis (or the client passed in): what was closed, for the error every call gets. */
  private closedByUser: string | undefined;
  /** The close of everything else that follows the user's close. */
  private closing: Promise<"OK"> | undefined;

  /**
   * Checks the options (a malformed one throws before any connection opens) and starts
   * connecting. Calls made before the connection is up wait for it, up to `offlineTimeoutMs`.
   *
   * @example
   * const RedisSMQ = require("rsmq-next");
   * const rsmq = new RedisSMQ({ host: "127.0.0.1", port: 6379, ns: "rsmq" });
   */
  constructor(options: ConstructorOptions = {}) {
    super();
    // Before connecting: options this rejects must not leave a connection open.
    const settings = resolveConstructorOptions(options);
    this.redisns = `${settings.ns}:`;
    this.realtime = settings.realtime;
    this.transport = openTransport(settings.connection, {
      connect: () => this.announceConnect(),
      disconnect: () => this.emit("disconnect"),
      error: (error) => this.connectionError(error),
      closed: (how) => this.userClosedConnection(how),
    });
    const telemetry = new TelemetryHub();
    const operations = new OperationRunner(this.transport, settings.replicaAcks, telemetry);
    this.subscriber = new RealtimeWakes(
      () => this.transport.openSubscriber((error) => this.subscriberError(error)),
      (count) => telemetry.recording?.commands("housekeeping", count),
    );
    const telemetrySettings = resolveTelemetry(settings.telemetry);
    if (telemetrySettings) startOpenTelemetry(telemetry, telemetrySettings, spanServerAddress(settings.connection), () => this);
    const notify = sendNotification(settings.realtime, settings.wakeConsumers);
    this.internals = {
      ns: settings.ns,
      layout: settings.layout,
      notify,
      run: (build) => (this.closedByUser ? this.refuseClosed(build) : operations.run(build)),
      command: (operation, args, key) => this.plainCommand(operation, args, key),
      realtimeWakes: () => this.subscriber,
      workers: this.workers,
      telemetry,
      reportProblem: (key, error) => this.problems.report(key, error),
    };
    attachInternals(this, this.internals);
    attachMethods(this, {
      internals: this.internals,
      notify,
      outlets: { emit: (event, duplicate) => this.emit(event, duplicate), reportProblem: (key, error) => this.problems.report(key, error) },
      closed: () => (this.closedByUser ? connectionClosedError(this.closedByUser) : undefined),
    });
    // Last: every method is a bound own property by now (see hand-out.ts).
    handOutEveryMethod(this, this.transport.handover);
  }

  /**
   * The client this instance talks through: the node-redis v4 client (with several `connections`,
   * the first one: the `client` passed in, or the first opened; the others are not exposed); in
   * Redis Cluster the cluster client (a new one after a failover made this instance re-read the
   * topology). Given an ioredis client as `client`, it is that ioredis client (typed here as
   * node-redis' for compatibility: cast it, `rsmq.redis as unknown as Redis`).
   *
   * Closing it yourself (`rsmq.redis.quit()`, as rsmq 0.12.4 code often ends), or closing the
   * `client` you passed in, closes the instance: its Workers stop, its other connections and wake
   * subscription close, so the process can exit, and every call afterwards rejects
   * `connectionClosed`.
   */
  get redis(): RedisClientType {
    return this.transport.client as RedisClientType;
  }

  /** Whether the connection is up right now (with several `connections`, any of them); false once you closed `redis`. */
  get connected(): boolean {
    return this.closedByUser === undefined && this.transport.connected;
  }

  /** `connect`, then rsmq 0.12.4's `scriptload:*`: the calls they stand for run from now on. */
  private announceConnect(): void {
    this.emit("connect");
    for (const event of SCRIPT_LOAD_EVENTS) this.emit(event);
  }

  /**
   * The user closed rsmq.redis (rsmq 0.12.4 code ends with `rsmq.redis.quit()`): the rest is closed
   * too, at once and all together, so the process can exit. Workers stop as stop() has them (a
   * handler still running can no longer delete its message: it comes back after its vt).
   */
  private userClosedConnection(how: string): void {
    if (this.closedByUser) return;
    this.closedByUser = how;
    this.closing = Promise.all([...[...this.workers].map((worker) => worker.stop()), this.subscriber.close(), this.transport.close()]).then(
      () => "OK" as const,
    );
    this.closing.catch((error: Error) => this.connectionError(error));
  }

  /** After the user's close: bad input is still named first (it needs no connection to be wrong), then connectionClosed. */
  private refuseClosed<T>(build: () => Operation<T>): Promise<T> {
    try {
      build();
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.reject(connectionClosedError(this.closedByUser!));
  }

  /** One plain command for `operation`, counted as housekeeping, with Redis' refusals explained. */
  private async plainCommand(operation: string, args: string[], key?: string): Promise<unknown> {
    if (this.closedByUser) throw connectionClosedError(this.closedByUser);
    this.internals.telemetry.recording?.commands("housekeeping", 1);
    try {
      return await this.transport.sendCommand(args, key);
    } catch (error) {
      throw explainRefusal(error, { operation, keys: key === undefined ? [] : [key] });
    }
  }

  /** A refused (UN)SUBSCRIBE is a lasting problem, told once; anything else is a connection error. */
  private subscriberError(error: Error): void {
    if (error.name === "noPermission") this.problems.report(error.message, error);
    else this.connectionError(error);
  }

  private connectionError(error: Error): void {
    if (this.listenerCount("error") > 0) this.emit("error", error);
    else this.problems.warnUnheard(error);
  }

  /**
   * Stops the workers started on this instance (each as its `stop()` does: running handlers get up
   * to its stopTimeoutMs), then closes the connection if this instance opened it; a client passed
   * in stays open. Resolves `"OK"`. After you closed {@link redis} yourself, the instance is closing
   * already: this resolves once it has closed the rest.
   */
  readonly quitAsync = async (): Promise<"OK"> => {
    // After the user closed rsmq.redis, the instance is closing already: nothing more to close.
    if (this.closing) return this.closing;
    await Promise.all([...this.workers].map((worker) => worker.stop()));
    await this.subscriber.close();
    return this.transport.close();
  };

  /** Stops this instance's workers and closes its connection; the callback gets `"OK"`. See {@link quitAsync}. */
  readonly quit = ((cb?: Callback<"OK">) => toCallback(this.quitAsync(), cb)) as {
    (callback: Callback<"OK">): void;
    (): Promise<"OK">;
  };
}
