/**
 * Typed events for the public classes that emit them (RedisSMQ, Worker): one map from event name
 * to the arguments its listeners get, and the four methods a user calls, checked against it.
 */
import { EventEmitter } from "events";

/**
 * An event's name: a key of the map (a string or symbol, as EventEmitter takes).
 * @inline
 */
type EventName<Events> = keyof Events & (string | symbol);

/**
 * A listener of one event of `Events`.
 * @inline
 */
type Listener<Events extends { [E in keyof Events]: unknown[] }, E extends keyof Events> = (...args: Events[E]) => void;

/**
 * Node's EventEmitter with `on`, `once`, `off` and `emit` typed by an event map (see
 * {@link RedisSMQEvents} and {@link WorkerEvents}): a listener gets the arguments its event
 * carries, and an event name the map lacks does not compile. Nothing is added at run time.
 */
export class TypedEventEmitter<Events extends { [E in keyof Events]: unknown[] }> extends EventEmitter {}

// Declared, not implemented: the methods are EventEmitter's own, with narrower types.
export interface TypedEventEmitter<Events extends { [E in keyof Events]: unknown[] }> {
  /** Calls `listener` on every `event`. */
  on<E extends EventName<Events>>(event: E, listener: Listener<Events, E>): this;
  /** Calls `listener` on the next `event` only. */
  once<E extends EventName<Events>>(event: E, listener: Listener<Events, E>): this;
  /** Removes a listener added with `on` or `once`. */
  off<E extends EventName<Events>>(event: E, listener: Listener<Events, E>): this;
  /** Emits `event` to its listeners; true if it had any. The emitter emits its own events: rarely needed. */
  emit<E extends EventName<Events>>(event: E, ...args: Events[E]): boolean;
}
