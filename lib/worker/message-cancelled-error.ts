/**
 * The reason a handler's `signal` aborts with when its message was cancelled: deleted by anyone,
 * in any process (`deleteMessageAsync` is the cancel), or received again by another consumer after
 * its visibility timeout lapsed, so this delivery's receipt no longer holds. The Worker notices at
 * its next visibility extension (half a vt after the receive, then every half vt) and does nothing
 * more with the message: no delete, no retry, no `failed`; it emits `cancelled` instead.
 *
 * @example
 * handler: async (message, { signal }) => {
 *   await render(message.message, { signal });
 *   if (signal.aborted && signal.reason instanceof MessageCancelledError) return; // cancelled elsewhere
 * }
 */
export class MessageCancelledError extends Error {
  /** Always "MESSAGE_CANCELLED": test for it rather than for the message text. */
  readonly code = "MESSAGE_CANCELLED";

  /**
   * @param id the id of the message whose delivery was cancelled
   * @param qname its queue
   */
  constructor(
    readonly id: string,
    readonly qname: string,
  ) {
    super(`message ${id} of queue "${qname}" was deleted or received again elsewhere: its handling is cancelled`);
    this.name = "MessageCancelledError";
  }
}

/** Whether `error` says a handler's message was cancelled. */
export function isMessageCancelled(error: unknown): error is MessageCancelledError {
  return error instanceof MessageCancelledError;
}
