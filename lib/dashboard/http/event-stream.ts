/**
 * `GET api/stream`: server-sent events. Each reading of the shared sampler goes out as
 * `event: queues` with the QueuesResponse JSON; a comment line every HEARTBEAT_MS keeps proxies
 * from closing an idle stream; `retry:` tells the browser how soon to reconnect. Closing the tab
 * unsubscribes, and the last stream to close stops the readings.
 */
import type { IncomingMessage, ServerResponse } from "http";
import type { QueuesResponse } from "../api-types";
import type { Sampler, SamplerState } from "../live/sampler";

/** Ms between two heartbeat comments on an otherwise quiet stream. */
export const HEARTBEAT_MS = 15_000;

/** What a stream needs of the dashboard. */
export interface StreamSource {
  sampler: Sampler;
  /** The JSON of one event, from the sampler's state. */
  answer(state: SamplerState): QueuesResponse;
  /** Ms the browser waits before reconnecting after a drop. */
  retryMs: number;
}

/** The open streams of one dashboard, so that close() can end them. */
export class EventStreams {
  private readonly open = new Set<() => void>();

  /** Starts a stream on `res`; it ends when the client goes, or on closeAll(). */
  start(req: IncomingMessage, res: ServerResponse, source: StreamSource): void {
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      // nginx buffers a proxied answer by default, which would hold the events back.
      "X-Accel-Buffering": "no",
      Connection: "keep-alive",
    });
    res.write(`retry: ${source.retryMs}\n\n`);
    const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), HEARTBEAT_MS).unref();
    let unsubscribe = (): void => undefined;
    const end = (): void => {
      if (!this.open.delete(end)) return;
      clearInterval(heartbeat);
      unsubscribe();
      res.end();
    };
    this.open.add(end);
    req.on("close", end);
    res.on("close", end);
    unsubscribe = source.sampler.subscribe((state) => {
      res.write(`event: queues\ndata: ${JSON.stringify(source.answer(state))}\n\n`);
    });
  }

  /** Streams open now. */
  get size(): number {
    return this.open.size;
  }

  /** Ends every open stream. */
  closeAll(): void {
    for (const end of [...this.open]) end();
  }
}
