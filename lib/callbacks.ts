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
export function toCallback<T>(promise: Promise<T>, callback: Callback<T> | undefined): Promise<T> | undefined {
  if (typeof callback !== "function") return promise;
  promise.then(
    (result) => process.nextTick(callback, null, result),
    (error: unknown) => process.nextTick(callback, error),
  );
  return undefined;
}

/** The callback twin of a promise method. */
export function withCallback<O, T>(method: (options: O) => Promise<T>): CallbackMethod<O, T> {
  return ((options: O, callback?: Callback<T>) => toCallback(method(options), callback)) as CallbackMethod<O, T>;
}
