/**
 * Where an instance's server is, for the spans' `server.address` and `server.port`: read from the
 * connection options as given, or from the client passed in. A cluster names no one server, and a
 * Unix socket no port: then the attribute is left off.
 */
import type { ConnectionSettings } from "../options/connection/connection-settings";
import { toClientOptions } from "../options/connection/client-options";
import { isIoredis } from "../transports/ioredis/client-shape";

export interface ServerAddress {
  readonly address?: string;
  readonly port?: number;
}

export function spanServerAddress(settings: ConnectionSettings): ServerAddress {
  if (settings.cluster) return {};
  const client = settings.given.client as { options?: Record<string, unknown> } | undefined | null;
  if (client !== undefined && client !== null) {
    if (isIoredis(client)) return fromSocket(client.options as Record<string, unknown>);
    return fromClientOptions(client.options ?? {});
  }
  return fromClientOptions(
    toClientOptions(settings.given as Record<string, unknown>, settings.honorNestedOptions) as Record<string, unknown>,
  );
}

function fromClientOptions(options: Record<string, unknown>): ServerAddress {
  if (typeof options.url === "string") {
    try {
      const url = new URL(options.url);
      return { address: url.hostname || undefined, port: url.port === "" ? 6379 : Number(url.port) };
    } catch {
      return {};
    }
  }
  return fromSocket((options.socket ?? {}) as Record<string, unknown>);
}

function fromSocket(socket: Record<string, unknown>): ServerAddress {
  if (typeof socket.path === "string") return { address: socket.path };
  const address = typeof socket.host === "string" ? socket.host : "localhost";
  const port = typeof socket.port === "number" ? socket.port : Number(socket.port ?? 6379);
  return { address, port: Number.isFinite(port) ? port : undefined };
}
