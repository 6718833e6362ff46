/**
 * Several connections to one server behind one RedisSMQ instance (the `connections` option). On
 * one connection the client and the server take turns: Redis idles while the client reads a batch
 * of replies and writes the next one. With two or more, Redis runs one connection's batch while
 * the client handles another's, so throughput is bounded by the busier side, not by their sum.
 *
 * - Dispatch (pool-dispatch.ts): the connection with the fewest calls in flight, held for the rest
 *   of the synchronous stretch, so calls made without an `await` between them keep their order;
 *   the dispatch is also the pool's `handover`, through which every outcome reaches the caller.
 * - A write and its WAIT (`waitForReplicas`) go on one connection: the one that ran the write.
 * - `connected` while any connection is up (a call then goes out at once, on one that is): `connect`
 *   when the first comes up, `disconnect` when the last is lost. An error that several connections
 *   report for one cause (the server went away) is emitted once; one connection lost alone is
 *   told by its error (and a new connection epoch), the others carrying the calls meanwhile.
 * - `connectionEpoch` changes whenever any connection is established anew.
 *
 * Opened on demand (`connections` left out, see pool-growth.ts), the pool starts with one
 * connection and opens extra ones only while calls pile up. An extra connection is invisible: it
 * takes calls once it is up, emits nothing, and is closed (never reopened) when it has been idle,
 * when it fails or is lost, when the first connection is lost, and by close(). Closing it never
 * drops a call: it carries none when idle, and otherwise its QUIT goes after the calls in flight.
 */
import type { RedisClientType } from "redis";
import { NodeRedisTransport } from "./node-redis-transport";
import type { ConnectionSettings } from "../../options/connection/connection-settings";
import type { PoolGrowth } from "./pool-growth";
import type { ReplicaAcks, Subscriber, Transport, TransportEvents } from "../transport";
import { StretchChoice } from "./pool-dispatch";
import type { DispatchTarget } from "./pool-dispatch";
import type { Handover } from "../handover";

class Member implements DispatchTarget {
  inFlight = 0;
  suspect = false;
  /** Calls sent on it so far, and at the last idle check: an extra connection that carried none for a period is idle. */
  calls = 0;
  callsAtCheck = 0;
  /** Closed here or being closed: no longer a member. */
  retired = false;
  /** An extra connection's bound on opening, then its idle check. */
  timer: NodeJS.Timeout | undefined;
  /** Releases one call in flight (one closure per member, not one per call). */
  readonly settled = (): void => {
    this.inFlight -= 1;
  };

  /** Set right after construction: the connection's events name this member. */
  connection!: NodeRedisTransport;

  /** @param extra opened on demand (see pool-growth.ts), not one of the connections asked for */
  constructor(readonly extra: boolean) {}

  get connected(): boolean {
    return this.connection.connected;
  }
}

export class ConnectionPool implements Transport {
  readonly cluster = false;
  /** The first is the one `client` names and is never retired; extra ones follow it. */
  private readonly members: Member[] = [];
  private readonly choice: StretchChoice<Member>;
  /** Each continuation and callback the caller gets starts a new stretch (see pool-dispatch.ts). */
  readonly handover: Handover;
  private up = false;
  private closing: Promise<"OK"> | undefined;
  /** Who reported each error message of the current outage: the others' same error is not news. */
  private readonly reported = new Map<string, Member>();
  /** In flight on the connection a call went on that opens an extra one (never, without growth). */
  private readonly openAtInFlight: number;
  /** The extra connection being opened: one at a time. */
  private opening: Member | undefined;
  /** Date.now() before which no extra connection opens (one failed or was lost). */
  private growAfter = 0;
  /** Extra connections being closed: close() waits for them too. */
  private readonly retiring = new Set<Promise<unknown>>();
  /** The epochs of retired connections, so that retiring one does not change connectionEpoch. */
  private retiredEpochs = 0;

  /**
   * Opens `count` connections. With a node-redis v4 client as `client`, the first is that client
   * (borrowed, never closed here) and the others are its duplicates, owned and closed here. With
   * `growth`, opens more while calls pile up (see pool-growth.ts), up to `growth.most`.
   */
  constructor(
    private readonly settings: ConnectionSettings,
    count: number,
    private readonly events: TransportEvents,
    private readonly growth?: PoolGrowth,
  ) {
    this.openAtInFlight = growth && growth.most > count ? growth.openAtInFlight : Infinity;
    for (let index = 0; index < count; index += 1) this.add(false);
    this.choice = new StretchChoice(this.members);
    this.handover = this.choice;
  }

  /** The first connection's client: the one given as `client`, or the first one opened. */
  get client(): RedisClientType {
    return this.members[0].connection.client;
  }

  /** Whether any connection is up right now: a call made now goes out at once. */
  get connected(): boolean {
    return this.members.some((member) => member.connected);
  }

  /** Changes whenever any of the connections reconnects. */
  get connectionEpoch(): number {
    let epoch = this.retiredEpochs;
    for (const member of this.members) epoch += member.connection.connectionEpoch;
    return epoch;
  }

  /** How many connections there are, and the clients behind them (first: `client`). */
  get clients(): RedisClientType[] {
    return this.members.map((member) => member.connection.client);
  }

  sendCommand(args: string[], _firstKey?: string): Promise<unknown> {
    const member = this.dispatch();
    const reply = member.connection.sendCommand(args);
    reply.then(member.settled, member.settled);
    return reply;
  }

  /** The write and its WAIT on one connection: WAIT anywhere else would confirm nothing. */
  sendReplicated(args: string[], key: string | undefined, acks: ReplicaAcks): Promise<unknown> {
    const member = this.dispatch();
    const reply = member.connection.sendReplicated(args, key, acks);
    reply.then(member.settled, member.settled);
    return reply;
  }

  /** SUBSCRIBE on a copy of the first connection's client. */
  openSubscriber(onError: (error: Error) => void): Subscriber {
    return this.members[0].connection.openSubscriber(onError);
  }

  /**
   * Closes every connection opened here, extra ones included (those still connecting too), and
   * opens no more; a client passed in stays open. Safe at any time and more than once (the same
   * promise), also after the first connection's client was closed by its user.
   */
  close(): Promise<"OK"> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<"OK"> {
    for (const member of [...this.members]) if (member.extra) this.retire(member);
    await Promise.all([...this.members.map((member) => member.connection.close()), ...this.retiring]);
    return "OK";
  }

  /** The member for a call made now, counted in flight; opens an extra connection when calls pile up. */
  private dispatch(): Member {
    // One connection: nothing to choose, and no choice to hold (an extra one opening joins the choice).
    const member = this.members.length === 1 ? this.members[0] : this.choice.next();
    member.inFlight += 1;
    member.calls += 1;
    if (member.inFlight >= this.openAtInFlight) this.grow();
    return member;
  }

  /**
   * Opens an extra connection, if the pool may grow now. It takes calls only once it is up
   * (dispatch prefers connected members), so the calls of the current stretch stay where they are.
   */
  private grow(): void {
    const growth = this.growth!;
    if (this.closing || this.opening || this.members.length >= growth.most) return;
    if (!this.members[0].connected || Date.now() < this.growAfter) return;
    const member = this.add(true);
    this.opening = member;
    // Not up within a period (node-redis' connectTimeout normally ends the attempt first): given up.
    member.timer = setTimeout(() => this.extraLost(member), growth.idleMs);
    // An extra connection's own socket keeps the process alive while it is open, never its timers.
    member.timer.unref();
  }

  /** An extra connection is up: it takes calls from now on, and its idle periods start. */
  private extraUp(member: Member): void {
    if (member.retired) return;
    if (this.opening === member) this.opening = undefined;
    clearTimeout(member.timer);
    member.callsAtCheck = member.calls;
    member.timer = setInterval(() => this.checkIdle(member), this.growth!.idleMs);
    member.timer.unref();
  }

  private add(extra: boolean): Member {
    const first = this.members[0]?.connection;
    const member = new Member(extra);
    const memberEvents: TransportEvents = extra
      ? {
          connect: () => this.extraUp(member),
          disconnect: () => this.extraLost(member),
          error: () => this.extraLost(member),
        }
      : {
          connect: () => this.memberUp(),
          disconnect: () => this.memberDown(member),
          error: (error) => this.memberError(member, error),
          // The user may close the first (`rsmq.redis`): the instance then closes the rest. The
          // others are never exposed, and closing one here (NodeRedisTransport.close) tells nothing.
          closed: (how) => this.events.closed?.(how),
        };
    member.connection =
      first && !first.owned
        ? new NodeRedisTransport(this.settings, memberEvents, first.client)
        : new NodeRedisTransport(this.settings, memberEvents);
    this.members.push(member);
    return member;
  }

  /** Runs every idleMs while an extra connection is up: it closes when it carried no call since the last check. */
  private checkIdle(member: Member): void {
    if (member.calls === member.callsAtCheck && member.inFlight === 0) this.retire(member);
    else member.callsAtCheck = member.calls;
  }

  /** An extra connection failed to open or was lost: it is closed, and none opens for a period. */
  private extraLost(member: Member): void {
    if (member.retired) return;
    this.growAfter = Date.now() + this.growth!.idleMs;
    this.retire(member);
  }

  /** Takes an extra connection out of the pool (new calls go elsewhere at once) and closes it. */
  private retire(member: Member): void {
    if (member.retired) return;
    member.retired = true;
    clearTimeout(member.timer);
    if (this.opening === member) this.opening = undefined;
    const index = this.members.indexOf(member);
    if (index !== -1) this.members.splice(index, 1);
    this.choice.forget(member);
    this.retiredEpochs += member.connection.connectionEpoch;
    const closed: Promise<unknown> = member.connection
      .close()
      .catch(() => undefined)
      .finally(() => this.retiring.delete(closed));
    this.retiring.add(closed);
  }

  private memberUp(): void {
    if (this.members.every((member) => member.connected || member.extra)) this.reported.clear();
    if (this.up) return;
    this.up = true;
    this.events.connect();
  }

  private memberDown(lost: Member): void {
    // Extra connections exist only beside an up first one: what the first tells is then all there is.
    for (const member of [...this.members]) if (member.extra) this.retire(member);
    this.checkOthers(lost);
    if (!this.up || this.connected) return;
    this.up = false;
    this.events.disconnect();
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
  private memberError(member: Member, error: Error): void {
    const reporter = this.reported.get(error.message);
    if (reporter !== undefined && reporter !== member && !reporter.connected) return;
    this.reported.set(error.message, member);
    this.events.error(error);
  }
}
