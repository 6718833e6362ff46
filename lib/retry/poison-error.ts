/**
 * Thrown by a handler to say the failure is permanent: no further delivery can help (a payload
 * that cannot be parsed, a missing configuration). The worker stops retrying at once. Any error
 * with `poison: true` is treated the same way, so a library's own error class can opt in.
 *
 * @example
 * if (!order.customerId) throw new PoisonError("order without a customer");
 */
export class PoisonError extends Error {
  /** Marks the failure as permanent; any error with `poison: true` is treated alike. */
  readonly poison = true;

  /** @param options `cause`: the error that made the message unprocessable, kept as `error.cause`. */
  constructor(message?: string, options?: { cause?: unknown }) {
    super(message);
    this.name = "PoisonError";
    if (options && "cause" in options) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** Whether a handler's error declares itself permanent. */
export function isPoison(error: unknown): boolean {
  return error instanceof PoisonError || (typeof error === "object" && error !== null && (error as { poison?: unknown }).poison === true);
}
