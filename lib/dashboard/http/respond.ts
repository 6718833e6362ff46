/** Writing JSON answers and error answers, with `Cache-Control: no-store` (API data is live). */
import type { ServerResponse } from "http";
import type { ErrorResponse } from "../api-types";
import { HttpError } from "./http-error";
import { errorAnswer } from "./error-status";

/** Sends `body` as JSON with `status`. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(text)),
    "Cache-Control": "no-store",
  });
  res.end(text);
}

/** Sends the error answer for `error`: an HttpError as it is, an rsmq error or a Redis failure by its status. */
export function sendError(res: ServerResponse, error: unknown): void {
  const answer = error instanceof HttpError ? error : errorAnswer(error);
  const body: ErrorResponse = { error: answer.code, message: answer.message };
  if (res.headersSent) {
    // Only a stream has written its head; it ends instead.
    res.end();
    return;
  }
  sendJson(res, answer.status, body, answer.headers);
}
