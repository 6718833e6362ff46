/** A node-redis v4 client seen through the LinkWatchdog (WatchedLink). */
import type { RedisClientType } from "redis";
import type { WatchedLink } from "../watchdog/link-watchdog";
import { serverAddressOf } from "./private-shapes";

/**
 * A node-redis v4 client as a WatchedLink; `ownDoing` tells the errors this library caused itself
 * (a stuck attempt it cut short), which name no cause of a timeout.
 */
export function nodeRedisLink(client: RedisClientType, ownDoing: (error: Error) => boolean = () => false): WatchedLink {
  const heard = new Map<(error: Error) => void, (error: Error) => void>();
  return {
    get isReady() {
      return client.isReady;
    },
    get where() {
      return serverAddressOf(client);
    },
    withdrawable: true,
    on: (event, listener) => {
      if (event !== "error") return client.on(event, listener);
      const filtered = (error: Error): void => {
        if (!ownDoing(error)) listener(error);
      };
      heard.set(listener, filtered);
      return client.on(event, filtered);
    },
    off: (event, listener) => {
      if (event !== "error") return client.off(event, listener);
      const filtered = heard.get(listener);
      heard.delete(listener);
      return filtered ? client.off(event, filtered) : client;
    },
  };
}
