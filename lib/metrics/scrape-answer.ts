/**
 * The answer to a scrape, for the exporter (`rsmq-next metrics`) and the dashboard's `metrics`
 * route alike: 200 with the exposition text, or 503 with a one-line reason when Redis could not
 * be read (Prometheus then records the target as down: its `up` series is 0).
 */
import type { ServerResponse } from "http";
import { EXPOSITION_CONTENT_TYPE } from "./exposition";

/** Sends the exposition `text` (headers only for HEAD). */
export function sendExposition(res: ServerResponse, text: string, head = false): void {
  res.writeHead(200, {
    "Content-Type": EXPOSITION_CONTENT_TYPE,
    "Content-Length": String(Buffer.byteLength(text)),
    "Cache-Control": "no-store",
  });
  res.end(head ? undefined : text);
}

/** The reason of a failed reading, on one line. */
export function scrapeFailureReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `rsmq-next: cannot read the queues from Redis: ${message.replace(/\s*\n\s*/g, " ")}`;
}

/** Sends 503 with `reason` (one line of text). */
export function sendScrapeFailure(res: ServerResponse, reason: string, head = false): void {
  const text = `${reason.replace(/\s*\n\s*/g, " ")}\n`;
  res.writeHead(503, {
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(text)),
    "Cache-Control": "no-store",
  });
  res.end(head ? undefined : text);
}
