/**
 * An answer other than success, as the handler sends it: a status and the error JSON
 * (`{ error, message }`), plus any header the status needs (Allow for 405).
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    /** The stable code the JSON's `error` carries. */
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "HttpError";
  }
}
