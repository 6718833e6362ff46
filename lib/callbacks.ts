import { endStretch } from "./transports/node-redis/pool-dispatch";
import type { Callback } from "./types";

/**
 * A method in rsmq's callback style. Without a callback it returns the promise its `*Async` twin
 * would, so `await rsmq.sendMessage(opts)` works too.
 * @inline
 */
export interface CallbackMethod<O, T> {
  (options: O, callback: Callback<T>): void;
  (options: O): Promise<T>;
}

/**
 * Hands a promise's outcome to a node-style callback, outside the promise chain, so an exception
 * thrown by the callback surfaces as an ordinary uncaught exception rather than a rejection.
 */
export function settle<T>(promise: Promise<T>, callback: Callback<T> | undefined): Promise<T> | undefined {
  if (typeof callback !== "function") return promise;
  // Each callback starts a stretch of its own: the calls it makes choose their connection afresh
  // (callbacks queued together run back to back, see transports/node-redis/pool-dispatch.ts).
  promise.then(
    (result) => process.nextTick(succeeded, callback, result),
    (error: unknown) => process.nextTick(failed, callback, error),
  );
  return undefined;
}

function succeeded<T>(callback: Callback<T>, result: T): void {
  endStretch();
  callback(null, result);
}

function failed<T>(callback: Callback<T>, error: unknown): void {
  endStretch();
  (callback as (error: unknown) => void)(error);
}

/** The callback twin of a promise method. */
export function withCallback<O, T>(method: (options: O) => Promise<T>): CallbackMethod<O, T> {
  return ((options: O, callback?: Callback<T>) => settle(method(options), callback)) as CallbackMethod<O, T>;
}
