/**
 * Helpers for the cluster-only suites (test/transports/cluster/): plain connections to single nodes (what a
 * cluster client cannot do: KEYS on one master), queue names placed on chosen masters, a
 * child-process sender, and a ledger of sends and deliveries for the resharding and failover
 * suites (what was acknowledged, what was handled, what was lost or duplicated).
 */
import { createClient } from "redis";
import RedisSMQ = require("../../lib/index");
import { KeyLayout } from "../../lib/keys";
import type { ClusterNode, TestCluster } from "./cluster";
import { sendFromChild } from "./worker";

type NodeClient = ReturnType<typeof createClient>;

/** One plain (non-cluster) connection per node, opened on first use; close() closes them all. */
export class NodeClients {
  private readonly clients = new Map<number, Promise<NodeClient>>();

  async run(node: ClusterNode, args: string[]): Promise<unknown> {
    return (await this.client(node)).sendCommand(args);
  }

  /** KEYS `pattern` on this one node (no redirection: only what the node itself holds). */
  async keys(node: ClusterNode, pattern: string): Promise<string[]> {
    return ((await this.run(node, ["KEYS", pattern])) as string[]).sort();
  }

  async close(): Promise<void> {
    const clients = [...this.clients.values()];
    this.clients.clear();
    await Promise.all(
      clients.map(async (pending) => {
        const client = await pending.catch(() => undefined);
        if (client?.isOpen) await client.disconnect().catch(() => undefined);
      }),
    );
  }

  private client(node: ClusterNode): Promise<NodeClient> {
    let pending = this.clients.get(node.port);
    if (!pending) {
      const client = createClient({ url: node.url, socket: { reconnectStrategy: false } });
      client.on("error", () => undefined);
      pending = client.connect().then(() => client);
      this.clients.set(node.port, pending);
    }
    return pending;
  }
}

/**
 * Queue names `<prefix><n>` whose keys (in namespace `ns`, cluster layout) live on each master:
 * `perMaster` names per master, in the order of `masters`.
 */
export async function queueNamesPerMaster(
  cluster: TestCluster,
  ns: string,
  masters: ClusterNode[],
  perMaster = 1,
  prefix = "q",
): Promise<string[][]> {
  const layout = KeyLayout.for(ns, true);
  const found = masters.map(() => [] as string[]);
  for (let n = 0; found.some((names) => names.length < perMaster); n++) {
    if (n > 10_000) throw new Error("could not place a queue on every master");
    const qname = `${prefix}${n}`;
    const owner = await cluster.masterOfSlot(cluster.slotOf(layout.queue(qname).hash));
    const index = masters.findIndex((master) => master.id === owner.id);
    if (index >= 0 && found[index].length < perMaster) found[index].push(qname);
  }
  return found;
}

/**
 * Sends one message to each queue from a separate Node process connected to `rootNodes`, with
 * `realtime` on, so only the realtime publish (not this process's in-process wakes) can tell a
 * worker here. Resolves the ids.
 */
export function sendFromChildProcess(rootNodes: Array<{ url: string }>, ns: string, qnames: string[], message: string): Promise<string[]> {
  return sendFromChild({ cluster: { rootNodes }, ns }, qnames, message);
}

interface Sent {
  qname: string;
  body: string;
  /** Local epoch ms at which the send was made. */
  startedAt: number;
  /** Local epoch ms at which the send resolved. */
  at: number;
}

/** What producers sent and workers handled, and what follows from the two. */
export class DeliveryLedger {
  /** Acknowledged sends, by message id. */
  readonly sent = new Map<string, Sent>();
  /** Sends attempted, acknowledged or not. */
  attempts = 0;
  /** Sends that rejected. */
  readonly sendErrors: Error[] = [];
  /** Handler calls per message id. */
  readonly calls = new Map<string, number>();
  /** Bodies of every handled message id (including ids no send acknowledged). */
  private readonly bodyOf = new Map<string, string>();

  acknowledged(id: string, qname: string, body: string, startedAt: number): void {
    this.sent.set(id, { qname, body, startedAt, at: Date.now() });
  }

  handled(message: RedisSMQ.QueueMessage): void {
    this.calls.set(message.id, (this.calls.get(message.id) ?? 0) + 1);
    this.bodyOf.set(message.id, message.message);
  }

  /** Acknowledged sends not handled (yet). */
  lost(): string[] {
    return [...this.sent.keys()].filter((id) => !this.calls.has(id));
  }

  /** Handler calls beyond the first, over all messages. */
  duplicatedDeliveries(): number {
    let extra = 0;
    for (const count of this.calls.values()) extra += count - 1;
    return extra;
  }

  /** Handled messages no send acknowledged: a send retried after its first try had run (or a rejected send that had run). */
  unacknowledgedHandled(): number {
    return [...this.calls.keys()].filter((id) => !this.sent.has(id)).length;
  }

  /** Bodies handled under more than one message id (the same send written twice). */
  duplicatedSends(): number {
    const ids = new Map<string, number>();
    for (const body of this.bodyOf.values()) ids.set(body, (ids.get(body) ?? 0) + 1);
    return [...ids.values()].filter((count) => count > 1).length;
  }

  /** Acknowledged sends to `qname` that resolved after `at` (local epoch ms). */
  sentAfter(at: number, qname?: string): number {
    return [...this.sent.values()].filter((sent) => sent.at > at && (qname === undefined || sent.qname === qname)).length;
  }

  /** Acknowledged sends made within [from, to] (local epoch ms), whenever they resolved. */
  sentStartedBetween(from: number, to: number): number {
    return [...this.sent.values()].filter((sent) => sent.startedAt >= from && sent.startedAt <= to).length;
  }

  /** Whether every handled id carried the body its send acknowledged. */
  bodiesMatch(): boolean {
    return [...this.sent].every(([id, sent]) => !this.bodyOf.has(id) || this.bodyOf.get(id) === sent.body);
  }

  summary(label: string): string {
    const handled = [...this.sent.keys()].filter((id) => this.calls.has(id)).length;
    return (
      `${label}: sent ${this.sent.size}, handled ${handled}, lost ${this.lost().length}, ` +
      `duplicated ${this.duplicatedDeliveries()} (deliveries) + ${this.unacknowledgedHandled()} (unacknowledged sends handled), ` +
      `send errors ${this.sendErrors.length}`
    );
  }
}

/**
 * A producer loop: sends `<name>-<n>` to the queues in turn, one at a time, until stopped, and
 * records each outcome in the ledger. A rejected send is counted and the loop goes on.
 */
export class Producer {
  private stopped = false;
  readonly done: Promise<void>;

  constructor(
    private readonly rsmq: RedisSMQ,
    private readonly qnames: string[],
    private readonly ledger: DeliveryLedger,
    private readonly name: string,
    private readonly pauseMs = 5,
  ) {
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    for (let n = 0; !this.stopped; n++) {
      const qname = this.qnames[n % this.qnames.length];
      const body = `${this.name}-${n}`;
      this.ledger.attempts += 1;
      const startedAt = Date.now();
      try {
        this.ledger.acknowledged(await this.rsmq.sendMessageAsync({ qname, message: body }), qname, body, startedAt);
      } catch (error) {
        this.ledger.sendErrors.push(error as Error);
      }
      await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
    }
  }

  stop(): Promise<void> {
    this.stopped = true;
    return this.done;
  }
}
