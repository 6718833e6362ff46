/**
 * Every public method of the facade hands its outcome to the caller through the transport's
 * Handover, wrapped here in one place, so a method added later is covered with no list to keep.
 *
 * - A promise a method returns goes out through `handOut`: it is the outermost promise, the one the
 *   caller's continuations attach to. A reaction on an inner one would run a step too early: the
 *   continuations of replies that arrived together would again run back to back, after every one
 *   of those reactions.
 * - A callback a method is given starts a new stretch right before it is called: callbacks run
 *   from process.nextTick, those queued together back to back, with no microtask between them.
 * - Every method, peeks, redrive and quit included (a list of 13 names left those out, for no
 *   reason the code needed): a new stretch before a continuation never breaks the order of calls
 *   made without an `await` between them, the continuation being a synchronous stretch of its own.
 */
import { HAND_OUT_AS_IS } from "./transports/handover";
import type { Handover } from "./transports/handover";

type Method = (...args: unknown[]) => unknown;

/**
 * Wraps every own function property of `api` (the facade's methods, bound arrow properties) so
 * that what it returns or calls back goes out through `handover`.
 */
export function handOutEveryMethod(api: object, handover: Handover): void {
  // Handing out as is changes nothing: no wrapper on every call of a non-pool transport.
  if (handover === HAND_OUT_AS_IS) return;
  const methods = api as Record<string, unknown>;
  for (const name of Object.keys(methods)) {
    const method = methods[name];
    if (typeof method === "function") methods[name] = handingOut(method as Method, handover);
  }
}

function handingOut(method: Method, handover: Handover): Method {
  return (...args: unknown[]): unknown => {
    for (let index = 0; index < args.length; index += 1) {
      const arg = args[index];
      if (typeof arg === "function") args[index] = startingStretch(arg as Method, handover);
    }
    const outcome = method(...args);
    return outcome instanceof Promise ? handover.handOut(outcome) : outcome;
  };
}

function startingStretch(callback: Method, handover: Handover): Method {
  return (...outcome: unknown[]): unknown => {
    handover.startNewStretch();
    return callback(...outcome);
  };
}
