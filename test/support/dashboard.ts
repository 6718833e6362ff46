/**
 * The dashboard's handler mounted the three ways docs/dashboard.md shows (node:http at the root,
 * Express 5 under /ops/queues, Fastify 4 under /ops/queues), each on a free port, and a small HTTP
 * client that sends any header (fetch would refuse or rewrite Sec-Fetch-Site and Origin).
 */
import { createServer, request as httpRequest } from "http";
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "http";
import type { AddressInfo } from "net";
import express = require("express");
import { fastify as createFastify } from "fastify";
import type { DashboardHandler } from "../../lib/dashboard";

/** A running server with the dashboard mounted: the URL of the mount (ending in a slash). */
export interface Mounted {
  /** The dashboard's page, e.g. http://127.0.0.1:4567/ops/queues/ */
  base: string;
  /** The mount path without its trailing slash ("" at the root). */
  mountPath: string;
  close(): Promise<void>;
}

export type Mount = (handler: DashboardHandler) => Promise<Mounted>;

function listening(server: Server, mountPath: string): Promise<Mounted> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        base: `http://127.0.0.1:${port}${mountPath}/`,
        mountPath,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** node:http, the handler at the root. */
export const nodeHttpAtRoot: Mount = (handler) =>
  listening(
    createServer((req, res) => handler(req, res)),
    "",
  );

/** Express 5: `app.use("/ops/queues", requireOperator, dashboard)`, the operator check letting everyone in. */
export const expressUnderPath: Mount = async (handler) => {
  const app = express();
  const requireOperator = (_req: unknown, _res: unknown, next: () => void): void => next();
  app.use("/ops/queues", requireOperator, handler);
  return listening(createServer(app), "/ops/queues");
};

/** Fastify 4 under /ops/queues, exactly as docs/dashboard.md shows it. */
export const fastifyUnderPath: Mount = async (handler) => {
  let server: Server | undefined;
  const fastify = createFastify({
    serverFactory: (fastifyHandler) => {
      server = createServer(fastifyHandler);
      return server;
    },
  });
  const dashboard = handler;
  // -- as in docs/dashboard.md --
  await fastify.register(async (scope) => {
    // The dashboard reads its own bodies: no parser here, the request stream stays unread.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null));
    scope.all("/ops/queues", (_request, reply) => reply.redirect("/ops/queues/"));
    scope.all("/ops/queues/*", (request, reply) => {
      // eslint-disable-next-line @typescript-eslint/no-floating-promises -- hijack() returns the reply, which is thenable
      reply.hijack();
      request.raw.url = request.raw.url!.slice("/ops/queues".length);
      dashboard(request.raw, reply.raw);
    });
  });
  // -- end --
  await fastify.ready();
  const mounted = await listening(server!, "/ops/queues");
  return { ...mounted, close: async () => void (await Promise.all([mounted.close(), fastify.close()])) };
};

export const MOUNTS: ReadonlyArray<{ name: string; mount: Mount }> = [
  { name: "node:http at the root", mount: nodeHttpAtRoot },
  { name: "Express 5 under /ops/queues", mount: expressUnderPath },
  { name: "Fastify 4 under /ops/queues", mount: fastifyUnderPath },
];

/** An answer: status, headers, the body as text, and as JSON when it is JSON. */
export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON (with Content-Type: application/json unless headers say otherwise). */
  body?: unknown;
}

/** What the dashboard's own page sends with a POST. */
export const SAME_ORIGIN = { "Sec-Fetch-Site": "same-origin" };

/** Sends one request to `url`; resolves the whole answer. */
export function send(url: string, options: RequestOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let payload: string | Buffer | undefined;
  if (options.body !== undefined) {
    payload = typeof options.body === "string" || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === "content-type")) headers["Content-Type"] = "application/json";
  }
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? "GET", headers, agent: false }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        if (String(res.headers["content-type"]).startsWith("application/json")) json = JSON.parse(text);
        resolve({ status: res.statusCode!, headers: res.headers, text, json });
      });
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** A POST as the dashboard's page sends it: JSON, same origin. */
export function post(url: string, body: unknown = {}, headers: Record<string, string> = SAME_ORIGIN): Promise<Answer> {
  return send(url, { method: "POST", headers, body });
}

/** Opens a live-update stream; resolves once its head arrived, with the text read so far and a way to close it. */
export function openStream(url: string): Promise<{ res: IncomingMessage; text(): string; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
      res.on("error", () => undefined);
      resolve({ res, text: () => text, close: () => req.destroy() });
    });
    req.on("error", reject);
    req.end();
  });
}

/** node:http's ServerResponse, for handlers typed against it. */
export type { ServerResponse };
