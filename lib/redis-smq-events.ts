/** The events a RedisSMQ instance emits, and what rsmq 0.12.4 code waits for among them. */

/** The events a RedisSMQ instance emits. */
export interface RedisSMQEvents {
  /** The connection is up (again); with several `connections`, the first one up. */
  connect: [];
  /** The connection was lost or closed; with several `connections`, the last one. */
  disconnect: [];
  /**
   * A connection error. Emitted only when someone listens: an unheard error never crashes the
   * process, and is shown once per error as a process warning (code RSMQ_NEXT_CONNECTION_ERROR).
   */
  error: [error: Error];
  /**
   * rsmq 0.12.4's: its popMessage script is loaded. rsmq-next loads nothing (each script runs by
   * EVALSHA, and by EVAL once where the server lacks it), so this means "popMessage runs now": it
   * is emitted right after every `connect`, with no round trip, for code that waits for it
   * (`rsmq.once("scriptload:popMessage", start)`).
   */
  "scriptload:popMessage": [];
  /** rsmq 0.12.4's: receiveMessage runs now. Emitted right after every `connect` (see `scriptload:popMessage`). */
  "scriptload:receiveMessage": [];
  /** rsmq 0.12.4's: changeMessageVisibility runs now. Emitted right after every `connect` (see `scriptload:popMessage`). */
  "scriptload:changeMessageVisibility": [];
  /**
   * A send with a `dedupId` found it taken within its window (docs/idempotent-sends.md): nothing
   * was stored, and the call resolved `id`, the first message's. `dedupId` as the call gave it
   * (`true` for one derived from the body).
   */
  duplicate: [
    duplicate: {
      /** The queue sent to. */
      qname: string;
      /** The first message's id, which the call resolved. */
      id: string;
      /** The call's dedupId: its string, or `true` for one derived from the body. */
      dedupId: string | true;
    },
  ];
}

/**
 * What rsmq 0.12.4 emits once its three scripts are loaded, after each connect, in the order it
 * loads them (one SCRIPT LOAD each, answered in turn).
 */
export const SCRIPT_LOAD_EVENTS = ["scriptload:popMessage", "scriptload:receiveMessage", "scriptload:changeMessageVisibility"] as const;
