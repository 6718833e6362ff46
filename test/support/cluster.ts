/**
 * A real Redis Cluster for tests: redis-server child processes on free ports, joined with
 * `redis-cli --cluster create`, then reshaped the way an operator would reshape one (a slot
 * migrated to another master, a master killed and failed over, the dead node brought back).
 *
 * Every harness call that changes the topology returns only once all live nodes agree on it
 * (same CLUSTER NODES, cluster_state:ok, every slot on a live master, replicas in sync), so the
 * next step of a test sees one settled cluster whichever node its client happens to ask.
 */
import { spawn, spawnSync } from "child_process";
import type { ChildProcess } from "child_process";
import { mkdirSync, mkdtempSync } from "fs";
import { tmpdir } from "os";
import { join } from "path";
import { commandOptions, createClient } from "redis";
import { hashSlot, SLOT_COUNT } from "../../lib/transports/cluster/hash-slot";
import { freePort, RedisServerStartError, startRedisServer } from "../../lib/cli/redis/redis-server";
import type { RedisServerProcess } from "../../lib/cli/redis/redis-server";
import { installExitHook, liveProcesses, liveTempDirs, removeTempDir } from "./leftovers";
import { makeTestCertificates, tlsUnavailableReason } from "./test-tls";
import type { TestCertificates } from "./test-tls";

/** Number of hash slots in a Redis Cluster. */
export { SLOT_COUNT };

const HOST = "127.0.0.1";

/** One redis-server process of a test cluster. */
export interface ClusterNode {
  readonly port: number;
  readonly host: typeof HOST;
  /** `redis://127.0.0.1:<port>`, for a plain client on this one node. */
  readonly url: string;
  /** The node's cluster id (CLUSTER MYID); it survives restartNode(). */
  readonly id: string;
  /** The node's TLS port, on a cluster started with `tls: true` (undefined otherwise). */
  readonly tlsPort: number | undefined;
}

export interface MigrateSlotOptions {
  /** Keys moved per MIGRATE (default 100). */
  keysPerBatch?: number;
  /** Pause after each batch, so a test can act while the slot is half moved (default 0). */
  pauseMs?: number;
  /** Called after each batch while the slot is still MIGRATING/IMPORTING. */
  afterBatch?: (progress: { keysMoved: number }) => void | Promise<void>;
}

export interface FailoverOptions {
  /** How long the failover may take (default 30 s). */
  timeoutMs?: number;
  /**
   * Pause writes on the master (CLIENT PAUSE WRITE) and wait until its replicas have everything
   * before killing it (default true), so every acknowledged write survives the failover, even
   * under load; writes sent meanwhile fail with the connection instead. Set false to kill with
   * replication in flight, as a crash would.
   */
  syncReplicasFirst?: boolean;
  /**
   * Called once the master is dead (its process has exited), before the failover: calls a test
   * starts here without awaiting them are in flight during the failover (default none).
   */
  afterKill?: () => void;
}

export interface TestCluster {
  /** Every process the harness started, replicas included, dead or alive, in start order. */
  readonly nodes: readonly ClusterNode[];
  /** The live nodes, in the shape node-redis `createCluster({ rootNodes })` wants. */
  rootNodes(): Array<{ url: string }>;
  /**
   * The CA that signed the nodes' certificate (PEM, for a client's `socket.ca`), on a cluster
   * started with `tls: true`; undefined otherwise.
   */
  readonly tlsCa: string | undefined;
  /** The live masters, ordered by their first slot. */
  masters(): Promise<ClusterNode[]>;
  /** The live replicas. */
  replicas(): Promise<ClusterNode[]>;
  /** The live replicas of one master. */
  replicasOf(master: ClusterNode): Promise<ClusterNode[]>;
  /** The live master serving `slot`; throws when its master is down. */
  masterOfSlot(slot: number): Promise<ClusterNode>;
  /** The hash slot of `key` (CRC16 of the key, or of its `{hash tag}`, modulo 16384). */
  slotOf(key: string | Buffer): number;
  /**
   * Moves one slot with all its keys to another master, as `redis-cli --cluster reshard` does:
   * SETSLOT IMPORTING on the target, MIGRATING on the source, GETKEYSINSLOT + MIGRATE ... KEYS
   * in batches until the slot is empty, then SETSLOT NODE on the target, the source and the
   * other masters. Returns once every live node places the slot on `to`.
   */
  migrateSlot(slot: number, to: ClusterNode, options?: MigrateSlotOptions): Promise<{ keysMoved: number }>;
  /**
   * SIGKILLs the master serving `slot` and returns once one of its replicas has been promoted
   * and every live node reports cluster_state:ok with all slots on live masters.
   */
  killMasterAndWaitForFailover(slot: number, options?: FailoverOptions): Promise<{ killed: ClusterNode; promoted: ClusterNode }>;
  /**
   * Starts a killed node again on its old port with its old nodes.conf (and no data); a master
   * that was failed over rejoins as a replica of the master that replaced it. Returns once the
   * node is a live, in-sync member every node agrees on.
   */
  restartNode(node: ClusterNode): Promise<void>;
  /**
   * SIGKILLs a replica and returns once every live node marks it failed (its master then has one
   * replica fewer). A master is refused: killMasterAndWaitForFailover() is for those.
   */
  killReplica(node: ClusterNode): Promise<void>;
  /** The password every node asks for (`password` option), or undefined when they ask none. */
  readonly password: string | undefined;
  /** Kills every process and removes the data directories. */
  close(): Promise<void>;
}

export interface TestClusterOptions {
  /** At least 3, since redis-cli will not create a smaller cluster (default 3). */
  masters?: number;
  /** Default 1. */
  replicasPerMaster?: number;
  /** cluster-node-timeout: how long a silent node takes to be suspected failing (default 1000). */
  nodeTimeoutMs?: number;
  /** cluster-require-full-coverage (default true, as in Redis): whether the whole cluster refuses commands while a slot has no live master. */
  requireFullCoverage?: boolean;
  /**
   * Protects every node with this password (requirepass for the default user, masterauth for
   * replication); the harness itself and redis-cli authenticate with it. Default: no password.
   */
  password?: string;
  /** More ACL users, each as a `user` directive's arguments (`"alice on >secret ~* &* +@all"`). */
  users?: string[];
  /**
   * Each node also takes TLS connections on a port of its own (ClusterNode.tlsPort), and the nodes
   * talk to each other over TLS (bus and replication), with a certificate from a CA made for the
   * cluster (TestCluster.tlsCa). CLUSTER SLOTS then names the TLS ports to a TLS client and the
   * plain ones to a plain client, so the harness and plain clients work as without. Needs openssl
   * and a redis-server built with TLS: see tlsUnavailableReason() (default false).
   */
  tls?: boolean;
}

/** Why this machine cannot run a test cluster (no redis-server / redis-cli 7+ on PATH), or undefined. */
export function clusterUnavailableReason(): string | undefined {
  if (unavailableReason === null) unavailableReason = findUnavailableReason();
  return unavailableReason;
}

let unavailableReason: string | undefined | null = null;

function findUnavailableReason(): string | undefined {
  for (const tool of ["redis-server", "redis-cli"]) {
    const result = spawnSync(tool, ["--version"], { encoding: "utf8" });
    if (result.error) return `${tool} is not on PATH (${result.error.message}); the cluster tests need Redis 7+ installed locally`;
    const major = Number(/(\d+)\.\d+\.\d+/.exec(result.stdout)?.[1]);
    // cluster-port (a bus port other than port + 10000) is new in Redis 7, and free ports are often above 55535.
    if (!(major >= 7)) return `${tool} is not Redis 7+ (${result.stdout.trim()}); the cluster tests need cluster-port`;
  }
  return undefined;
}

/** Starts a cluster (3 masters with 1 replica each by default) and waits until it has settled. */
export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const reason = clusterUnavailableReason();
  if (reason) throw new Error(reason);
  const masters = options.masters ?? 3;
  const replicasPerMaster = options.replicasPerMaster ?? 1;
  if (masters < 3) throw new Error("redis-cli --cluster create needs at least 3 masters");

  const tlsReason = options.tls ? tlsUnavailableReason() : undefined;
  if (tlsReason) throw new Error(`a TLS test cluster cannot be started here: ${tlsReason}`);

  installExitHook();
  const root = mkdtempSync(join(tmpdir(), "rsmq-next-cluster-"));
  liveTempDirs.add(root);
  let certificates: TestCertificates | undefined;
  try {
    certificates = options.tls ? makeTestCertificates(root) : undefined;
  } catch (error) {
    removeTempDir(root);
    throw error;
  }
  const settings = nodeSettings(options, certificates);
  const portsInUse = new Set<number>();
  const started = await Promise.allSettled(
    Array.from({ length: masters * (1 + replicasPerMaster) }, () =>
      startOnFreePorts(root, settings, portsInUse, certificates !== undefined),
    ),
  );
  const servers = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  try {
    const failed = started.find((result): result is PromiseRejectedResult => result.status === "rejected");
    if (failed) throw failed.reason;
    servers.sort((a, b) => a.port - b.port);
    await runRedisCli([
      ...(options.password === undefined ? [] : ["-a", options.password, "--no-auth-warning"]),
      "--cluster",
      "create",
      ...servers.map((server) => `${HOST}:${server.port}`),
      "--cluster-replicas",
      String(replicasPerMaster),
      "--cluster-yes",
    ]);
  } catch (error) {
    await Promise.all(servers.map((server) => server.kill()));
    removeTempDir(root);
    throw error;
  }
  const cluster = new LocalCluster(root, servers, options.password, certificates?.ca);
  try {
    await cluster.identify();
    await cluster.waitUntilSettled("the new cluster to settle", 30_000);
    return cluster;
  } catch (error) {
    await cluster.close();
    throw error;
  }
}

/** The hash slot of a key, as Redis computes it (the library's own function, checked against CLUSTER KEYSLOT by the harness suite). */
export const keySlot = hashSlot;

/** Each node's redis-server arguments, after startRedisServer's defaults (127.0.0.1, loglevel notice, nothing persisted: a restarted node gets its data from its master). */
function nodeSettings(options: TestClusterOptions, certificates: TestCertificates | undefined): string[] {
  return [
    "--cluster-enabled",
    "yes",
    "--cluster-config-file",
    "nodes.conf",
    // Failure detection takes about this long, and a failover a second or two more.
    "--cluster-node-timeout",
    String(options.nodeTimeoutMs ?? 1000),
    // A replica may take over however long it has been out of touch with its master.
    "--cluster-replica-validity-factor",
    "0",
    // Replicas stay with the master the test gave them; the topology changes only when a test changes it.
    "--cluster-allow-replica-migration",
    "no",
    "--cluster-require-full-coverage",
    options.requireFullCoverage === false ? "no" : "yes",
    // Redis 7 waits 5 s by default before a diskless full sync, to batch replicas; tests want it now.
    "--repl-diskless-sync",
    "yes",
    "--repl-diskless-sync-delay",
    "0",
    // CLUSTER SLOTS hides a replica whose replication offset is still 0, which on an idle new
    // master only moves at its next ping to the replicas (every 10 s by default).
    "--repl-ping-replica-period",
    "1",
    ...(options.password === undefined ? [] : ["--requirepass", options.password, "--masterauth", options.password]),
    ...(options.users ?? []).flatMap((rules) => ["--user", ...rules.split(" ")]),
    ...(certificates === undefined
      ? []
      : [
          // The bus and replication over TLS too, as a cluster that needs TLS would run; nodes check
          // each other's certificate, clients need none of their own.
          ...["--tls-cluster", "yes", "--tls-replication", "yes", "--tls-auth-clients", "no"],
          ...["--tls-cert-file", certificates.certFile, "--tls-key-file", certificates.keyFile, "--tls-ca-cert-file", certificates.caFile],
        ]),
  ];
}

function trackChild(child: ChildProcess): void {
  const running = { kill: () => void child.kill("SIGKILL") };
  liveProcesses.add(running);
  child.once("exit", () => liveProcesses.delete(running));
}

function isPortInUse(error: unknown): boolean {
  return error instanceof RedisServerStartError && error.code === "portInUse";
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One redis-server, which can be killed and started again on the same ports and directory. */
class NodeProcess {
  private server: RedisServerProcess | undefined;

  constructor(
    readonly port: number,
    private readonly busPort: number,
    readonly tlsPort: number | undefined,
    private readonly dir: string,
    private readonly settings: string[],
  ) {}

  get alive(): boolean {
    return this.server?.running ?? false;
  }

  async start(): Promise<void> {
    if (this.alive) throw new Error(`node ${this.port} is already running`);
    this.server = await startRedisServer({
      port: this.port,
      args: [
        "--cluster-port",
        String(this.busPort),
        ...(this.tlsPort === undefined ? [] : ["--tls-port", String(this.tlsPort)]),
        "--dir",
        this.dir,
        ...this.settings,
      ],
    });
    liveProcesses.add(this.server);
  }

  async kill(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await server.stop("SIGKILL");
    liveProcesses.delete(server);
  }
}

/** Starts a node on two ports (three with TLS) nobody else uses; tries new ports when a free-a-moment-ago port got taken meanwhile. */
async function startOnFreePorts(root: string, settings: string[], portsInUse: Set<number>, tls: boolean): Promise<NodeProcess> {
  const pick = async (): Promise<number> => {
    for (;;) {
      const port = await freePort();
      if (!portsInUse.has(port)) {
        portsInUse.add(port);
        return port;
      }
    }
  };
  for (let attempt = 1; ; attempt++) {
    const port = await pick();
    const dir = join(root, String(port));
    mkdirSync(dir);
    const node = new NodeProcess(port, await pick(), tls ? await pick() : undefined, dir, settings);
    try {
      await node.start();
      return node;
    } catch (error) {
      if (attempt >= 3 || !isPortInUse(error)) throw error;
    }
  }
}

function runRedisCli(args: string[]): Promise<string> {
  const child = spawn("redis-cli", args, { stdio: ["ignore", "pipe", "pipe"] });
  trackChild(child);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("error", (error) => reject(new Error(`cannot run redis-cli: ${error.message}`)));
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`redis-cli ${args.join(" ")} failed (${code ?? signal}):\n${output}`));
    });
  });
}

/** One line of CLUSTER NODES: how one node sees another (or itself). */
interface NodeEntry {
  id: string;
  port: number;
  myself: boolean;
  master: boolean;
  /** "fail?" is this node's own suspicion; "fail" is the cluster's verdict. */
  failure: "" | "fail?" | "fail";
  /** Set on nodes that are not yet (or no longer) properly known: handshake, noaddr. */
  unknown: boolean;
  masterId: string | undefined;
  slots: Array<[number, number]>;
  /** Whether the line lists an open [slot->-id] / [slot-<-id] migration. */
  migrating: boolean;
}

function parseClusterNodes(text: string): NodeEntry[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => {
      const [id, address, flagList, master, , , , , ...slotFields] = line.trim().split(" ");
      const flags = flagList.split(",");
      const slots: Array<[number, number]> = [];
      for (const field of slotFields) {
        if (field.startsWith("[")) continue;
        const [from, to = from] = field.split("-").map(Number);
        slots.push([from, to]);
      }
      return {
        id,
        port: Number(/:(\d+)@/.exec(address)?.[1]),
        myself: flags.includes("myself"),
        master: flags.includes("master"),
        failure: flags.includes("fail") ? "fail" : flags.includes("fail?") ? "fail?" : "",
        unknown: flags.includes("handshake") || flags.includes("noaddr"),
        masterId: master === "-" ? undefined : master,
        slots,
        migrating: slotFields.some((field) => field.startsWith("[")),
      };
    });
}

/** The ids of the nodes in a CLUSTER SLOTS reply: [from, to, master, ...replicas], each node as [host, port, id, ...]. */
function slotsReplyNodeIds(reply: unknown): Set<string> {
  const ids = new Set<string>();
  for (const [, , ...nodes] of reply as Array<[number, number, ...Array<[string, number, string]>]>) {
    for (const node of nodes) ids.add(node[2]);
  }
  return ids;
}

function servesSlot(entry: NodeEntry, slot: number): boolean {
  return entry.slots.some(([from, to]) => slot >= from && slot <= to);
}

/** What must be equal in every node's CLUSTER NODES for the nodes to agree. */
function topologySignature(view: NodeEntry[]): string {
  return view
    .map(
      (entry) =>
        `${entry.id} ${entry.master ? "master" : `replica-of-${entry.masterId}`} ${entry.failure} ${entry.slots.map((range) => range.join("-")).join(",")}`,
    )
    .sort()
    .join("\n");
}

type NodeClient = ReturnType<typeof createClient>;

class LocalCluster implements TestCluster {
  readonly nodes: ClusterNode[] = [];
  private readonly serverById = new Map<string, NodeProcess>();
  /** One plain connection per node, for the harness's own commands. */
  private readonly clients = new Map<number, Promise<NodeClient>>();
  private closed = false;

  constructor(
    private readonly root: string,
    private readonly servers: NodeProcess[],
    readonly password: string | undefined,
    readonly tlsCa: string | undefined,
  ) {}

  async identify(): Promise<void> {
    for (const server of this.servers) {
      const url = `redis://${HOST}:${server.port}`;
      const id = String(await this.sendTo(server.port, ["CLUSTER", "MYID"]));
      this.nodes.push(Object.freeze({ port: server.port, host: HOST, url, id, tlsPort: server.tlsPort }));
      this.serverById.set(id, server);
    }
  }

  rootNodes(): Array<{ url: string }> {
    return this.liveNodes().map((node) => ({ url: node.url }));
  }

  async masters(): Promise<ClusterNode[]> {
    const view = await this.view();
    return view
      .filter((entry) => entry.master && entry.failure === "" && this.isAlive(entry.id))
      .sort((a, b) => (a.slots[0]?.[0] ?? SLOT_COUNT) - (b.slots[0]?.[0] ?? SLOT_COUNT))
      .map((entry) => this.nodeById(entry.id));
  }

  async replicas(): Promise<ClusterNode[]> {
    const view = await this.view();
    return view.filter((entry) => !entry.master && entry.failure === "" && this.isAlive(entry.id)).map((entry) => this.nodeById(entry.id));
  }

  async replicasOf(master: ClusterNode): Promise<ClusterNode[]> {
    const view = await this.view();
    return view
      .filter((entry) => entry.masterId === master.id && entry.failure === "" && this.isAlive(entry.id))
      .map((entry) => this.nodeById(entry.id));
  }

  async masterOfSlot(slot: number): Promise<ClusterNode> {
    const owner = (await this.view()).find((entry) => entry.master && servesSlot(entry, slot));
    if (!owner) throw new Error(`no node serves slot ${slot}`);
    const node = this.nodeById(owner.id);
    if (!this.isAlive(owner.id)) throw new Error(`slot ${slot} belongs to ${node.port}, which is down`);
    return node;
  }

  slotOf(key: string | Buffer): number {
    return keySlot(key);
  }

  async migrateSlot(slot: number, to: ClusterNode, options: MigrateSlotOptions = {}): Promise<{ keysMoved: number }> {
    const { keysPerBatch = 100, pauseMs = 0, afterBatch } = options;
    const from = await this.masterOfSlot(slot);
    if (from.id === to.id) return { keysMoved: 0 };
    if (!(await this.masters()).some((master) => master.id === to.id)) throw new Error(`${to.port} is not a live master`);

    // Importing first: once the source says MIGRATING, it sends clients on to the target with ASK.
    await this.send(to, ["CLUSTER", "SETSLOT", String(slot), "IMPORTING", from.id]);
    await this.send(from, ["CLUSTER", "SETSLOT", String(slot), "MIGRATING", to.id]);
    let keysMoved = 0;
    for (;;) {
      const keys = await this.sendForBuffers(from, ["CLUSTER", "GETKEYSINSLOT", String(slot), String(keysPerBatch)]);
      if (keys.length === 0) break;
      const auth = this.password === undefined ? [] : ["AUTH", this.password];
      // With tls-cluster, MIGRATE connects over TLS: to the target's TLS port.
      const port = String(to.tlsPort ?? to.port);
      await this.send(from, ["MIGRATE", to.host, port, "", "0", "10000", "REPLACE", ...auth, "KEYS", ...keys]);
      keysMoved += keys.length;
      await afterBatch?.({ keysMoved });
      if (pauseMs > 0) await delay(pauseMs);
    }
    // Target first, so the slot always has an owner that accepts it; then the source stops sending ASK.
    await this.send(to, ["CLUSTER", "SETSLOT", String(slot), "NODE", to.id]);
    await this.send(from, ["CLUSTER", "SETSLOT", String(slot), "NODE", to.id]);
    for (const master of await this.masters()) {
      if (master.id !== from.id && master.id !== to.id) await this.send(master, ["CLUSTER", "SETSLOT", String(slot), "NODE", to.id]);
    }
    await this.waitUntilSettled(`slot ${slot} to move to ${to.port}`, 15_000, async () =>
      (await this.masterOfSlot(slot)).id === to.id ? undefined : `slot ${slot} is not on ${to.port} yet`,
    );
    return { keysMoved };
  }

  async killMasterAndWaitForFailover(slot: number, options: FailoverOptions = {}): Promise<{ killed: ClusterNode; promoted: ClusterNode }> {
    const { timeoutMs = 30_000, syncReplicasFirst = true, afterKill } = options;
    const killed = await this.masterOfSlot(slot);
    const replicaIds = (await this.view())
      .filter((entry) => entry.masterId === killed.id && entry.failure === "" && this.isAlive(entry.id))
      .map((entry) => entry.id);
    if (replicaIds.length === 0) throw new Error(`master ${killed.port} has no live replica to fail over to`);
    if (syncReplicasFirst)
      await this.pauseAndSyncReplicas(
        killed,
        replicaIds.map((id) => this.nodeById(id)),
      );

    await this.serverById.get(killed.id)!.kill();
    afterKill?.();
    await this.dropClient(killed.port);

    let promoted: ClusterNode | undefined;
    await this.waitUntilSettled(`a replica of ${killed.port} to take over`, timeoutMs, async () => {
      const owner = await this.masterOfSlot(slot);
      if (!replicaIds.includes(owner.id)) return `slot ${slot} is not on a former replica of ${killed.port} yet`;
      promoted = owner;
      return undefined;
    });
    return { killed, promoted: promoted! };
  }

  async restartNode(node: ClusterNode): Promise<void> {
    const server = this.serverById.get(node.id);
    if (!server) throw new Error(`${node.port} is not a node of this cluster`);
    for (let attempt = 1; ; attempt++) {
      try {
        await server.start();
        break;
      } catch (error) {
        // Its old port can be held for a moment by an outgoing connection that happened to get it.
        if (attempt >= 5 || !isPortInUse(error)) throw error;
        await delay(500);
      }
    }
    await this.waitUntilSettled(`${node.port} to rejoin`, 30_000);
  }

  async killReplica(node: ClusterNode): Promise<void> {
    const entry = (await this.view()).find((candidate) => candidate.id === node.id);
    if (!entry || entry.master) throw new Error(`${node.port} is not a replica`);
    await this.serverById.get(node.id)!.kill();
    await this.dropClient(node.port);
    await this.waitUntilSettled(`the cluster to mark replica ${node.port} failed`, 30_000);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.clients.keys()].map((port) => this.dropClient(port)));
    await Promise.all(this.servers.map((server) => server.kill()));
    removeTempDir(this.root);
  }

  /**
   * Polls until every live node reports cluster_state:ok and the same CLUSTER NODES, in which
   * every slot is on a live master, dead nodes are marked failed, live ones are not, and every
   * live replica's link to its master is up; plus `extra`, when given, has nothing to report.
   */
  async waitUntilSettled(what: string, timeoutMs: number, extra?: () => Promise<string | undefined>): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let problem: string | undefined = "not checked yet";
    while (Date.now() < deadline) {
      try {
        problem = (await this.unsettled()) ?? (await extra?.());
      } catch (error) {
        // A node that is restarting, loading or syncing refuses commands for a moment.
        problem = error instanceof Error ? error.message : String(error);
      }
      if (problem === undefined) return;
      await delay(50);
    }
    throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${problem}`);
  }

  private async unsettled(): Promise<string | undefined> {
    let reference: { port: number; signature: string } | undefined;
    for (const node of this.liveNodes()) {
      const info = String(await this.send(node, ["CLUSTER", "INFO"]));
      if (!info.includes("cluster_state:ok")) return `${node.port} reports ${/cluster_state:\w+/.exec(info)?.[0]}`;
      const view = parseClusterNodes(String(await this.send(node, ["CLUSTER", "NODES"])));
      const problem = this.viewProblem(view);
      if (problem) return `${node.port} sees ${problem}`;
      const signature = topologySignature(view);
      if (!reference) reference = { port: node.port, signature };
      else if (signature !== reference.signature) return `${node.port} and ${reference.port} disagree about the topology`;
      // Clients discover the cluster with CLUSTER SLOTS, which leaves out a replica until the
      // replica has gossiped a replication offset other than 0.
      const listed = slotsReplyNodeIds(await this.send(node, ["CLUSTER", "SLOTS"]));
      const shardOf = (entry: NodeEntry) => (entry.master ? entry : view.find((other) => other.id === entry.masterId));
      const expected = view.filter((entry) => this.isAlive(entry.id) && (shardOf(entry)?.slots.length ?? 0) > 0);
      if (listed.size !== expected.length || expected.some((entry) => !listed.has(entry.id))) {
        return `${node.port} does not list every live node in CLUSTER SLOTS yet`;
      }
      if (!view.find((entry) => entry.myself)!.master) {
        const replication = String(await this.send(node, ["INFO", "replication"]));
        if (!replication.includes("master_link_status:up")) return `replica ${node.port} is not in sync with its master yet`;
      }
    }
    return undefined;
  }

  private viewProblem(view: NodeEntry[]): string | undefined {
    if (view.length !== this.nodes.length || view.some((entry) => entry.unknown || !this.serverById.has(entry.id))) {
      return "a cluster membership still in the making";
    }
    const covered = new Array<boolean>(SLOT_COUNT).fill(false);
    for (const entry of view) {
      const alive = this.isAlive(entry.id);
      if (alive && entry.failure !== "") return `live node ${entry.port} as ${entry.failure}`;
      if (!alive && entry.failure !== "fail") return `dead node ${entry.port} not yet marked as failed`;
      if (entry.migrating) return `a slot migration still open on ${entry.port}`;
      if (!entry.master || !alive) continue;
      for (const [from, to] of entry.slots) covered.fill(true, from, to + 1);
    }
    const uncovered = covered.indexOf(false);
    if (uncovered !== -1) return `slot ${uncovered} without a live master`;
    return undefined;
  }

  /**
   * Stops writes on the master and waits until every replica has processed all it has sent, so
   * killing the master then loses nothing acknowledged. Writes stay paused (until the kill).
   */
  private async pauseAndSyncReplicas(master: ClusterNode, replicas: ClusterNode[]): Promise<void> {
    const offsetOf = async (node: ClusterNode, field: string) =>
      Number(new RegExp(`${field}:(\\d+)`).exec(String(await this.send(node, ["INFO", "replication"])))?.[1] ?? -1);
    await this.send(master, ["CLIENT", "PAUSE", "20000", "WRITE"]);
    try {
      const target = await offsetOf(master, "master_repl_offset");
      const deadline = Date.now() + 10_000;
      for (const replica of replicas) {
        while ((await offsetOf(replica, "slave_repl_offset")) < target) {
          if (Date.now() > deadline) throw new Error(`replica ${replica.port} did not catch up with ${master.port}`);
          await delay(10);
        }
      }
    } catch (error) {
      await this.send(master, ["CLIENT", "UNPAUSE"]).catch(() => undefined);
      throw error;
    }
  }

  /** CLUSTER NODES as the first live node sees it. */
  private async view(): Promise<NodeEntry[]> {
    const [node] = this.liveNodes();
    if (!node) throw new Error("no node of the cluster is running");
    return parseClusterNodes(String(await this.send(node, ["CLUSTER", "NODES"])));
  }

  private liveNodes(): ClusterNode[] {
    return this.nodes.filter((node) => this.isAlive(node.id));
  }

  private isAlive(id: string): boolean {
    return this.serverById.get(id)?.alive ?? false;
  }

  private nodeById(id: string): ClusterNode {
    const node = this.nodes.find((candidate) => candidate.id === id);
    if (!node) throw new Error(`node ${id} is not part of this cluster`);
    return node;
  }

  private send(node: ClusterNode, args: Array<string | Buffer>): Promise<unknown> {
    return this.sendTo(node.port, args);
  }

  private async sendForBuffers(node: ClusterNode, args: string[]): Promise<Buffer[]> {
    const client = await this.client(node.port);
    return await client.sendCommand<Buffer[]>(args, commandOptions({ returnBuffers: true }));
  }

  private async sendTo(port: number, args: Array<string | Buffer>): Promise<unknown> {
    const client = await this.client(port);
    return client.sendCommand(args);
  }

  /** The harness's connection to a node, reopened when the node went away since. */
  private async client(port: number): Promise<NodeClient> {
    const existing = this.clients.get(port);
    if (existing) {
      const client = await existing.catch(() => undefined);
      if (client?.isReady) return client;
      await this.dropClient(port);
    }
    // No reconnecting: a dead node should fail the command at once, and the next call reconnects.
    const client = createClient({
      url: `redis://${HOST}:${port}`,
      password: this.password,
      socket: { reconnectStrategy: false, connectTimeout: 2000 },
    });
    client.on("error", () => undefined);
    const connecting = client.connect().then(() => client);
    this.clients.set(port, connecting);
    return connecting;
  }

  private async dropClient(port: number): Promise<void> {
    const pending = this.clients.get(port);
    this.clients.delete(port);
    const client = await pending?.catch(() => undefined);
    if (client?.isOpen) await client.disconnect().catch(() => undefined);
  }
}
