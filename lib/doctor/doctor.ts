/**
 * The doctor: finds, in one namespace, what is out of place (what old clients, crashes and races
 * leave behind), and with `fix` repairs it, in bounded chunks, while producers and consumers
 * work. The order:
 * 1. the registry (SMEMBERS) and the queue hashes SCAN finds (or only `qnames`);
 * 2. per queue: its settings, its hash and its sorted set (message-passes.ts), then the
 *    repairs other features add (DoctorPort.queueRepairs, with `fix` only);
 * 3. the registry's repairs last (registry-repair.ts): in Redis Cluster they wait for a grace
 *    period that the queue passes have mostly used up.
 * Without `fix` every script it runs is read-only (EVALSHA_RO), and its plain commands are reads.
 */
import { rsmqError } from "../errors/rsmq-errors";
import { isGiven, validateBatchSize, validateQname } from "../operations/rsmq-input-rules";
import type { DoctorOptions, DoctorReport } from "../types";
import type { DoctorPort } from "./doctor-port";
import { lookAtQueue, repairSettings } from "./doctor-operations";
import { FindingTally } from "./finding-tally";
import { passOverHash, passOverSet } from "./message-passes";
import type { PassSettings } from "./message-passes";
import { scanQueueNames } from "./queue-discovery";
import { handleRegistryProblems } from "./registry-repair";
import type { RegistryProblem } from "./registry-repair";
import { CHECKED_FIELDS, settingProblems } from "./settings-check";
import { QUEUE_DEFAULTS } from "../operations/create-queue";
import { defineProcedure } from "../operations/descriptor";
import type { RedisSMQInternals } from "../internals";
import { sweepExpired } from "../retention/sweep";

/** Fields or members per script call when `chunk` is not given. */
export const DEFAULT_CHUNK = 200;

interface CheckedOptions extends PassSettings {
  readonly qnames: string[] | undefined;
}

/** The options, checked before any round trip, in rsmq's error style. */
export function checkDoctorOptions(options: Partial<DoctorOptions>): CheckedOptions {
  const fix = isGiven(options.fix) ? options.fix : false;
  if (typeof fix !== "boolean") throw rsmqError("invalidValue", "fix must be true or false");
  let qnames: string[] | undefined;
  if (isGiven(options.qnames)) {
    if (!Array.isArray(options.qnames)) throw rsmqError("invalidValue", "qnames must be an array of queue names");
    qnames = [...new Set(options.qnames.map((qname) => validateQname(qname)))];
  }
  const chunk = isGiven(options.chunk) ? validateBatchSize("chunk", options.chunk) : DEFAULT_CHUNK;
  return { fix, qnames, chunk };
}

/** Looks at (and with `fix` repairs) the namespace of `port`; see the file header. */
export async function runDoctor(port: DoctorPort, options: Partial<DoctorOptions>): Promise<DoctorReport> {
  const settings = checkDoctorOptions(options);
  const { layout } = port;
  const tally = new FindingTally();
  const registry = new Set((await port.command(["SMEMBERS", layout.registry], layout.registry)) as string[]);
  const qnames = settings.qnames ?? [...new Set([...registry, ...(await scanQueueNames(port, settings.chunk))])].sort();
  const registryProblems: RegistryProblem[] = [];
  let queues = 0;
  for (const qname of qnames) {
    const keys = layout.queue(qname);
    const look = await port.run(() => lookAtQueue(keys, CHECKED_FIELDS));
    const isQueue = look.values.slice(0, 3).some((value) => value !== null);
    if (registry.has(qname) !== isQueue) {
      registryProblems.push({ kind: isQueue ? "queueNotInRegistry" : "registryWithoutQueue", qname, seenAt: Date.now() });
    }
    if (!isQueue) {
      if (look.hashFields > 0)
        tally.add("leftoverHash", { qname, item: keys.hash, detail: `${look.hashFields} fields, no vt, delay or maxsize` });
      continue;
    }
    queues += 1;
    await checkSettings(port, tally, qname, look.values, settings.fix);
    await passOverHash(port, tally, qname, keys, settings);
    await passOverSet(port, tally, qname, keys, settings);
    if (settings.fix) {
      for (const { kind, repair } of port.queueRepairs) tally.addFixed(kind, qname, await repair(qname));
    }
  }
  await handleRegistryProblems(port, tally, registryProblems, settings.fix);
  const findings = tally.findings();
  return { ns: port.ns, fix: settings.fix, queues, findings, left: findings.reduce((sum, { left }) => sum + left, 0) };
}

async function checkSettings(
  port: DoctorPort,
  tally: FindingTally,
  qname: string,
  values: Array<string | null>,
  fix: boolean,
): Promise<void> {
  const problems = settingProblems(qname, values);
  const badRetention = problems.find((problem) => problem.kind === "invalidRetention");
  const repairable = problems.some((problem) => problem.kind !== "invalidSetting");
  const repaired =
    fix && repairable
      ? await port.run(() =>
          repairSettings(
            port.layout.queue(qname),
            QUEUE_DEFAULTS,
            badRetention?.kind === "invalidRetention" ? badRetention.value : undefined,
          ),
        )
      : undefined;
  for (const problem of problems) {
    if (problem.kind === "invalidSetting") {
      tally.add("invalidSetting", { qname, item: problem.field, detail: `${JSON.stringify(problem.value)}, expected ${problem.expected}` });
    } else if (problem.kind === "missingSetting") {
      const outcome = repaired ? (repaired.defaulted.includes(problem.field) ? "fixed" : "resolved") : undefined;
      tally.add("missingSetting", { qname, item: problem.field, detail: `missing; rsmq's default is ${problem.defaultValue}` }, outcome);
    } else {
      const outcome = repaired ? (repaired.retentionRemoved ? "fixed" : "resolved") : undefined;
      tally.add(
        "invalidRetention",
        { qname, item: "retention", detail: `${JSON.stringify(problem.value)}, expected whole seconds` },
        outcome,
      );
    }
  }
}

/** doctorAsync: what is out of place in the namespace, repaired with `fix`. */
export const doctorOperation = defineProcedure<DoctorOptions, DoctorReport>({
  optionKeys: { fix: true, qnames: true, chunk: true },
  optionalOptions: true,
  prepare: (options) => {
    checkDoctorOptions(options);
    return (internals) => runDoctor(doctorPortOf(internals), options);
  },
});

/** What the doctor gets of an instance: its keys, its operations, plain commands, and the repairs other features add. */
export function doctorPortOf(internals: RedisSMQInternals): DoctorPort {
  return {
    ns: internals.ns,
    layout: internals.layout,
    run: (build) => internals.run(build),
    command: (args, key) => internals.command("doctor", args, key),
    // Expired messages no receive meets (in flight, delayed, in queues nobody reads): the
    // retention sweep, under the queue's sweep lock, counted as the doctor's `expired` kind.
    queueRepairs: [{ kind: "expired", repair: async (qname) => (await sweepExpired(internals, qname)).expired }],
  };
}
