/**
 * A POST's JSON body: `Content-Type: application/json`, at most 1 MB, an object. Read from the
 * stream, or from `req.body` where a framework's body parser read the stream first (Express's
 * `express.json()`, a Fastify route passing `request.body` on).
 */
import type { IncomingMessage } from "http";
import { HttpError } from "./http-error";

/** The largest body accepted: 1 MB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A request a framework may have parsed already. */
type MaybeParsed = IncomingMessage & { body?: unknown };

/** Reads the body of a POST; rejects with an HttpError (415, 413, 400) when it is not a JSON object. */
export async function readJsonBody(req: MaybeParsed): Promise<Record<string, unknown>> {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    throw new HttpError(415, "unsupportedMediaType", "Send the body as JSON, with Content-Type: application/json.");
  }
  if (req.body !== undefined) return objectOf(parsedBefore(req.body));
  const declared = Number(req.headers["content-length"]);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const text = await readText(req);
  return objectOf(parse(text));
}

function parsedBefore(body: unknown): unknown {
  if (typeof body === "string") return parse(body);
  if (Buffer.isBuffer(body)) return parse(body.toString("utf8"));
  return body;
}

function parse(text: string): unknown {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new HttpError(400, "invalidJson", "The body is not valid JSON.");
  }
}

function objectOf(value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError(400, "invalidJson", "The body must be a JSON object, like {}.");
  }
  return value as Record<string, unknown>;
}

function tooLarge(): HttpError {
  return new HttpError(413, "payloadTooLarge", `The body is over ${MAX_BODY_BYTES} bytes.`, { Connection: "close" });
}

function readText(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        cleanup();
        // The rest is not read: the answer closes the connection (Connection: close).
        req.pause();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(Buffer.concat(chunks).toString("utf8"));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const cleanup = (): void => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
  });
}
