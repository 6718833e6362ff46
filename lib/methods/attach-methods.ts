/**
 * Gives the facade its queue operations: for each descriptor of the registry, the `<name>Async`
 * method (the call path, call-path.ts) and its callback twin `<name>`, as own bound properties
 * (the facade hands every one of them out through its transport: hand-out.ts).
 */
import { toCallback, withCallback } from "../callbacks";
import type { Callback } from "../types";
import type { QueueMethods } from "./queue-methods";
import { callPath } from "./call-path";
import type { Caller } from "./call-path";
import type { AsyncMethodOf } from "../operations/descriptor";
import { OPERATIONS } from "./registry";
import type { OperationMethodName } from "./registry";

type AsyncName = `${OperationMethodName}Async`;

/** The `*Async` methods as the descriptors make them. */
type Derived = { readonly [K in OperationMethodName as `${K}Async`]: AsyncMethodOf<(typeof OPERATIONS)[K]> };

/**
 * A descriptor without its declaration in queue-methods.ts (a method users could not see) is a
 * compile error here; so is a declaration without a descriptor, or one whose options or result
 * disagree with its descriptor's (see `declared` below).
 */
type Undeclared = Exclude<keyof Derived, keyof QueueMethods>;
const everyOperationDeclared: [Undeclared] extends [never] ? true : Undeclared = true;

/** Sets the operations on `facade` (the RedisSMQ instance being constructed). */
export function attachMethods(facade: object, caller: Caller): void {
  const methods = facade as Record<string, unknown>;
  const names = Object.keys(OPERATIONS) as OperationMethodName[];
  const derived = {} as Record<AsyncName, unknown>;
  for (const name of names) derived[`${name}Async`] = callPath(name, OPERATIONS[name] as never, caller);
  const declared: Pick<QueueMethods, AsyncName> = derived as Derived;
  // The promise methods first, then their twins: the order rsmq-next's methods always had.
  for (const name of names) methods[`${name}Async`] = declared[`${name}Async`];
  for (const name of names) {
    const method = declared[`${name}Async`] as (options?: unknown) => Promise<unknown>;
    methods[name] = "optionalOptions" in OPERATIONS[name] ? twinTakingCallbackFirst(method) : withCallback(method);
  }
  void everyOperationDeclared;
}

/** `name(callback)` as well as `name(options, callback)`: for operations whose options may be left out. */
function twinTakingCallbackFirst(method: (options?: unknown) => Promise<unknown>) {
  return (first?: unknown, second?: unknown) => {
    if (typeof first === "function") return toCallback(method(undefined), first as Callback<unknown>);
    return toCallback(method(first), second as Callback<unknown> | undefined);
  };
}
