/**
 * Where an ioredis client's realtime wakes are subscribed. A standalone or Sentinel-managed
 * client whose connection speaks RESP3 (ioredis 6, by default) carries them itself
 * (same-connection-subscriber.ts): no second connection. Otherwise, an ioredis 5 client, one
 * made with `protocol: 2`, one whose server refused HELLO 3, and every Cluster client, a copy
 * does (ioredis-subscriber.ts), as a RESP2 connection in subscriber mode runs no other command.
 * The protocol is known once the client is ready: a client not ready yet is looked at then, on
 * the first subscription, within offlineTimeoutMs.
 */
import { asksForResp3, speaksResp3 } from "./client-shape";
import type { AnyIoredis, IoredisClient } from "./client-shape";
import { ioredisLink } from "./ioredis-link";
import { IoredisSubscriber } from "./ioredis-subscriber";
import { SameConnectionSubscriber } from "./same-connection-subscriber";
import { LinkWatchdog } from "../watchdog/link-watchdog";
import type { LinkBounds } from "../watchdog/link-watchdog";
import type { ChannelListener, Subscriber } from "../transport";

/** The wake subscriber for an ioredis client (see the module comment). */
export function openIoredisSubscriber(
  client: AnyIoredis,
  onError: (error: Error) => void,
  bounds: LinkBounds,
  pingMs: number | undefined,
): Subscriber {
  const onCopy = (): Subscriber => new IoredisSubscriber(client, onError, bounds, pingMs);
  if (client.isCluster || !asksForResp3(client)) return onCopy();
  const standalone: IoredisClient = client;
  const pick = (): Subscriber => (speaksResp3(standalone) ? new SameConnectionSubscriber(standalone, onError, bounds, pingMs) : onCopy());
  return standalone.status === "ready" ? pick() : new PickedWhenReady(standalone, bounds, pick);
}

/** A subscriber chosen once the client is ready, on the first subscription. */
class PickedWhenReady implements Subscriber {
  /** Holds the first subscription until the client is ready, within offlineTimeoutMs. */
  private readonly watchdog: LinkWatchdog;
  private picked: Subscriber | undefined;
  private picking: Promise<Subscriber> | undefined;

  constructor(
    client: IoredisClient,
    bounds: LinkBounds,
    private readonly pick: () => Subscriber,
  ) {
    this.watchdog = new LinkWatchdog(ioredisLink(client), bounds);
  }

  async subscribe(channel: string, listener: ChannelListener): Promise<void> {
    await (await this.chosen()).subscribe(channel, listener);
  }

  async unsubscribe(channel: string): Promise<void> {
    await (await this.settled())?.unsubscribe(channel);
  }

  tick(capMs: number): boolean {
    return this.picked?.tick(capMs) ?? false;
  }

  async close(): Promise<void> {
    // Ends a wait for the client to be ready.
    this.watchdog.close();
    await (await this.settled())?.close();
  }

  private chosen(): Promise<Subscriber> {
    if (this.picked) return Promise.resolve(this.picked);
    this.picking ??= this.watchdog
      .call(() => Promise.resolve())
      .then(
        () => (this.picked = this.pick()),
        (error: unknown) => {
          // Not ready in time: the next subscription waits again.
          this.picking = undefined;
          throw error;
        },
      );
    return this.picking;
  }

  /** The subscriber picked, once a pick in progress has ended; undefined when none was. */
  private async settled(): Promise<Subscriber | undefined> {
    return this.picked ?? (await this.picking?.catch(() => undefined));
  }
}
