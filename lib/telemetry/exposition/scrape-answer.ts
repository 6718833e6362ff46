/**
 * The answer to a scrape, for the exporter (`rsmq-next metrics`) and the dashboard's `metrics`
 * route alike: 200 with the exposition text, or 503 with a one-line reason when Redis could not
 * be read (Prometheus then records the target as down: its `up` series is 0).
 */
import type { ServerResponse } from "http";
import { EXPOSITION_CONTENT_TYPE } from "./exposition";

/** Sends the exposition `text` (headers only for HEAD). */
export function sendExposition(res: ServerResponse, text: string, head = false): void {
  send(res, 200, EXPOSITION_CONTENT_TYPE, text, head);
}

/** Sends 503 with why Redis could not be read (an error, or what is missing), on one line. */
export function sendScrapeFailure(res: ServerResponse, why: unknown, head = false): void {
  const cause = why instanceof Error ? why.message : String(why);
  const text = `rsmq-next: cannot read the queues from Redis: ${cause}`.replace(/\s*\n\s*/g, " ");
  send(res, 503, "text/plain; charset=utf-8", `${text}\n`, head);
}

function send(res: ServerResponse, status: number, contentType: string, text: string, head: boolean): void {
  res.writeHead(status, { "Content-Type": contentType, "Content-Length": String(Buffer.byteLength(text)), "Cache-Control": "no-store" });
  res.end(head ? undefined : text);
}
