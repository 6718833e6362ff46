/**
 * Several connections to one server behind one RedisSMQ instance (the `connections` option). On
 * one connection the client and the server take turns: Redis idles while the client reads a batch
 * of replies and writes the next one. With two or more, Redis runs one connection's batch while
 * the client handles another's, so throughput is bounded by the busier side, not by their sum.
 *
 * - Dispatch (pool-dispatch.ts): the connection with the fewest calls in flight, held for the rest
 *   of the synchronous stretch, so calls made without an `await` between them keep their order.
 * - A write and its WAIT (`waitForReplicas`) go on one connection: the one that ran the write.
 * - `connected` while any connection is up (a call then goes out at once, on one that is): `connect`
 *   when the first comes up, `disconnect` when the last is lost. An error that several connections
 *   report for one cause (the server went away) is emitted once; one connection lost alone is
 *   told by its error (and a new connection epoch), the others carrying the calls meanwhile.
 * - `connectionEpoch` changes whenever any connection is established anew.
 */
import type { RedisClientType } from "redis";
import { Connection, type ConnectionEvents } from "./connection";
import type { ConnectionSettings } from "./connection-settings";
import type { LinkBounds } from "./link-watchdog";
import type { ReplicaAcks } from "./replica-acks";
import { StretchChoice, type DispatchTarget } from "./pool-dispatch";

class Member implements DispatchTarget {
  inFlight = 0;
  suspect = false;
  /** Releases one call in flight (one closure per member, not one per call). */
  readonly settled = (): void => {
    this.inFlight -= 1;
  };

  /** Set right after construction: the connection's events name this member. */
  connection!: Connection;

  get connected(): boolean {
    return this.connection.connected;
  }
}

export class ConnectionPool {
  readonly cluster = false;
  private readonly members: Member[] = [];
  private readonly choice: StretchChoice<Member>;
  private up = false;
  private closing = false;
  /** Who reported each error message of the current outage: the others' same error is not news. */
  private readonly reported = new Map<string, Member>();

  /**
   * Opens `count` connections. With a node-redis v4 client as `client`, the first is that client
   * (borrowed, never closed here) and the others are its duplicates, owned and closed here.
   */
  constructor(settings: ConnectionSettings, count: number, events: ConnectionEvents) {
    for (let index = 0; index < count; index += 1) {
      const source = index === 0 ? undefined : this.members[0].connection;
      const member = new Member();
      const memberEvents: ConnectionEvents = {
        connect: () => this.memberUp(events),
        disconnect: () => this.memberDown(member, events),
        error: (error) => this.memberError(member, error, events),
        // Only the first is the user's to close (the others are never exposed): the instance then closes the rest.
        closed: (how) => events.closed?.(how),
      };
      member.connection =
        source && !source.owned ? new Connection(settings, memberEvents, source.client) : new Connection(settings, memberEvents);
      this.members.push(member);
    }
    this.choice = new StretchChoice(this.members);
  }

  /** The first connection's client: the one given as `client`, or the first one opened. */
  get client(): RedisClientType {
    return this.members[0].connection.client;
  }

  get bounds(): LinkBounds {
    return this.members[0].connection.bounds;
  }

  get subscriberPingMs(): number {
    return this.members[0].connection.subscriberPingMs;
  }

  /** Whether any connection is up right now: a call made now goes out at once. */
  get connected(): boolean {
    return this.members.some((member) => member.connected);
  }

  /** Changes whenever any of the connections reconnects. */
  get connectionEpoch(): number {
    let epoch = 0;
    for (const member of this.members) epoch += member.connection.connectionEpoch;
    return epoch;
  }

  /** How many connections there are, and the clients behind them (first: `client`). */
  get clients(): RedisClientType[] {
    return this.members.map((member) => member.connection.client);
  }

  sendCommand(args: string[], _firstKey?: string): Promise<unknown> {
    const member = this.choice.next();
    member.inFlight += 1;
    const reply = member.connection.sendCommand(args);
    reply.then(member.settled, member.settled);
    return reply;
  }

  /** The write and its WAIT on one connection: WAIT anywhere else would confirm nothing. */
  sendReplicated(args: string[], key: string | undefined, acks: ReplicaAcks): Promise<unknown> {
    const member = this.choice.next();
    member.inFlight += 1;
    const reply = member.connection.sendReplicated(args, key, acks);
    reply.then(member.settled, member.settled);
    return reply;
  }

  /** Closes every connection opened here; a client passed in stays open. */
  async close(): Promise<"OK"> {
    this.closing = true;
    await Promise.all(this.members.map((member) => member.connection.close()));
    return "OK";
  }

  private memberUp(events: ConnectionEvents): void {
    if (this.members.every((member) => member.connected)) this.reported.clear();
    if (this.up) return;
    this.up = true;
    events.connect();
  }

  private memberDown(lost: Member, events: ConnectionEvents): void {
    this.checkOthers(lost);
    if (!this.up || this.connected) return;
    this.up = false;
    events.disconnect();
  }

  /**
   * A connection was lost (found silent, or the server went away): the others to the same server
   * may be silent too, unnoticed while no call waits on them. Each is PINGed (bounded by
   * commandTimeoutMs, which replaces a silent link) and gets no new call until it answers.
   */
  private checkOthers(lost: Member): void {
    if (this.closing) return;
    for (const member of this.members) {
      if (member === lost || member.suspect || !member.connected) continue;
      member.suspect = true;
      const trusted = (): void => {
        member.suspect = false;
      };
      member.connection.sendCommand(["PING"]).then(trusted, trusted);
    }
  }

  /**
   * One cause (a server restart) reaches every connection: its error is emitted for the first
   * connection that reports it, and again only when that same connection reports it again (each
   * reconnect attempt, as with one connection), until every connection is up.
   */
  private memberError(member: Member, error: Error, events: ConnectionEvents): void {
    const reporter = this.reported.get(error.message);
    if (reporter !== undefined && reporter !== member && !reporter.connected) return;
    this.reported.set(error.message, member);
    events.error(error);
  }
}
