/**
 * A server-sent-events client for the dashboard's tests: opens a stream over node:http and keeps
 * every event it gets, parsed, so a test can wait for the n-th one. What a browser's EventSource
 * does, minus the reconnect (a test that wants one opens a new stream).
 */
import { get } from "http";
import type { ClientRequest, IncomingMessage } from "http";

export interface ReceivedEvent {
  event: string;
  data: string;
}

export interface OpenStream {
  readonly response: IncomingMessage;
  readonly events: ReceivedEvent[];
  /** The data of every event named `name`, as JSON. */
  json<T = unknown>(name: string): T[];
  close(): void;
}

/** Opens `url` as an event stream; rejects unless the server answers 200 within `timeoutMs`. */
export function openEventStream(url: string, timeoutMs = 10_000): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    let request: ClientRequest | undefined = undefined;
    const timer = setTimeout(() => {
      request?.destroy();
      reject(new Error(`no answer from ${url} within ${timeoutMs} ms`));
    }, timeoutMs);
    request = get(url, { headers: { accept: "text/event-stream" } }, (response) => {
      clearTimeout(timer);
      if (response.statusCode !== 200) {
        response.resume();
        reject(new Error(`${url} answered ${response.statusCode}`));
        return;
      }
      const events: ReceivedEvent[] = [];
      let buffer = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split("\n").filter((line) => !line.startsWith(":"));
          if (lines.length === 0) continue;
          const event =
            lines
              .find((line) => line.startsWith("event:"))
              ?.slice(6)
              .trim() ?? "message";
          const data = lines
            .filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(5).replace(/^ /, ""))
            .join("\n");
          events.push({ event, data });
        }
      });
      response.on("error", () => undefined);
      resolve({
        response,
        events,
        json: <T>(name: string) => events.filter((received) => received.event === name).map((received) => JSON.parse(received.data) as T),
        close: () => request?.destroy(),
      });
    });
    request.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
