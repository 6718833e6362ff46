/**
 * A POST's JSON body: `Content-Type: application/json`, at most 1 MB, an object with only the
 * fields its route takes. Read from the stream, or from `req.body` where a framework's body parser
 * read the stream first (Express's `express.json()`, a Fastify route passing `request.body` on).
 */
import type { IncomingMessage } from "http";
import { suggestionFor } from "../../options/unknown-options";
import { HttpError } from "./http-error";

/** The largest body accepted: 1 MB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** A request a framework may have parsed already. */
type MaybeParsed = IncomingMessage & { body?: unknown };

/**
 * Reads the body of a POST; rejects with an HttpError (415, 413, 400) when it is not a JSON
 * object, and (400) when it holds a field not in `fields`.
 */
export async function readJsonBody(req: MaybeParsed, fields: readonly string[]): Promise<Record<string, unknown>> {
  const type = (req.headers["content-type"] ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/json") {
    throw new HttpError(415, "unsupportedMediaType", "Send the body as JSON, with Content-Type: application/json.");
  }
  if (req.body !== undefined) return onlyFields(objectOf(parsedBefore(req.body)), fields);
  const declared = Number(req.headers["content-length"]);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const text = await readText(req);
  return onlyFields(objectOf(parse(text)), fields);
}

/**
 * Unlike the library's methods, which warn and ignore (rsmq 0.12.4's callers pass extra keys),
 * the API has no callers to keep: a misspelt field (`prio`) is refused, never silently dropped.
 */
function onlyFields(body: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  for (const key of Object.keys(body)) {
    if (fields.includes(key)) continue;
    const suggestion = suggestionFor(key, { names: fields });
    const hint = suggestion === undefined ? "" : ` Did you mean \`${suggestion}\`?`;
    const taken = fields.length === 0 ? "This request takes no fields." : `This request takes: ${fields.join(", ")}.`;
    throw new HttpError(400, "unknownField", `The body's field \`${key}\` is not known.${hint} ${taken}`);
  }
  return body;
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
