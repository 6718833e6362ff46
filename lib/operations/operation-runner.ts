/**
 * Runs a built operation on a connection: the registry write before or after it (SADD, SREM), the
 * script by EVALSHA (ScriptRunner), replica acknowledgement of writes when asked for, and Redis'
 * refusals (out of memory, a read-only replica, no permission) turned into errors that name the call and its keys.
 *
 * How one call reaches the wire, `rsmq.sendMessageAsync(options)` for example:
 * - the facade's method is the call path (methods/call-path.ts) of sendMessage's descriptor, which hands
 *   `() => sendMessage(layout, notify, options)` to `run`;
 * - the operation builder (operations/send-message.ts) checks the input and returns an Operation:
 *   script name, keys, arguments, reply parser; bad input rejects here, before any round trip;
 * - the OperationRunner (this file) adds the registry write and replica acks where needed;
 * - the ScriptRunner (scripts/script-runner.ts) sends EVALSHA (EVAL once on NOSCRIPT);
 * - the transport (transports/: one server, its pool, a cluster, ioredis) sends that Redis command,
 *   routed by its first key, behind the CommandSender interface;
 * - the link watchdog (transports/watchdog/) bounds the wait for a connection and for the reply;
 * - node-redis (or the caller's ioredis client) writes it to the socket. The reply comes back up
 *   the same way and the Operation's `parse` turns it into the result.
 */
import type { Operation } from "./operation";
import { explainRefusal } from "../errors/refusals";
import { replicatedSender } from "../transports/replica-acks";
import type { CommandSender, ReplicaAcks, ReplicatedWriter } from "../transports/transport";
import { script } from "../scripts/script-files";
import type { Script } from "../scripts/script-files";
import { ScriptRunner } from "../scripts/script-runner";
import type { CommandKind, Recorder } from "../telemetry/recorder";
import type { TelemetryHub } from "../telemetry/telemetry-hub";

/** Runs the Operations of one RedisSMQ instance on its connection (see the file header). */
export class OperationRunner {
  private readonly scripts: ScriptRunner;

  constructor(
    private readonly connection: CommandSender & ReplicatedWriter,
    /** `waitForReplicas`: how many replicas must confirm each write, and how long to wait. */
    private readonly replicaAcks: ReplicaAcks | undefined,
    /** Where the commands sent are counted, by kind, while it records. */
    private readonly telemetry?: TelemetryHub,
  ) {
    this.scripts = new ScriptRunner(connection);
  }

  /** Builds the operation (bad input rejects before any round trip) and runs it. */
  run<T>(build: () => Operation<T>): Promise<T> {
    try {
      const operation = build();
      return operation.before || operation.after ? this.runWithRegistry(operation) : this.runScript(operation);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * A script alone (every message operation): one promise from the script's reply to the parsed
   * result, with no async layer in between (each costs more client CPU than the rest of the call).
   */
  private runScript<T>(operation: Operation<T>): Promise<T> {
    const body = script(operation.script);
    const sender = this.senderFor(operation, body);
    return this.scripts.run(body, operation.keys, operation.args, sender).then(
      (reply) => operation.parse(reply),
      (error: unknown) => {
        throw explainRefusal(error, { operation: operation.script, script: body, keys: operation.keys });
      },
    );
  }

  /** A script with a plain command on the queue registry before or after it (Redis Cluster). */
  private async runWithRegistry<T>(operation: Operation<T>): Promise<T> {
    let beforeWritten = false;
    let reply: unknown;
    const body = script(operation.script);
    const sender = this.senderFor(operation, body);
    // Built only for an error: the call's keys, for a refusal to name.
    const refused = (alreadyWritten: string | undefined) => {
      const plainKeys = [operation.before, operation.after].flatMap((plain) => (plain ? [plain.key] : []));
      return { operation: operation.script, script: body, keys: [...operation.keys, ...plainKeys], alreadyWritten };
    };
    try {
      if (operation.before) await this.write(operation.before.args, operation.before.key);
      beforeWritten = operation.before !== undefined;
      reply = await this.scripts.run(body, operation.keys, operation.args, sender);
    } catch (error) {
      const written = beforeWritten ? `${operation.before!.args[0]} ${operation.before!.args[1]} had run` : undefined;
      throw explainRefusal(error, refused(written));
    }
    try {
      if (operation.after?.onlyIf(reply)) await this.write(operation.after.args, operation.after.key);
    } catch (error) {
      throw explainRefusal(error, refused("the operation had run"));
    }
    return operation.parse(reply);
  }

  /** A plain write (the registry's SADD or SREM), acknowledged by replicas when asked to. */
  private async write(args: string[], key: string): Promise<void> {
    this.telemetry?.recording?.commands("housekeeping", this.replicaAcks ? 2 : 1);
    if (this.replicaAcks) await this.connection.sendReplicated(args, key, this.replicaAcks);
    else await this.connection.sendCommand(args, key);
  }

  /**
   * What a script is sent through: a write confirmed by replicas is WAITed for on the node
   * connection that ran it; while telemetry records, each command it sends is counted.
   */
  private senderFor(operation: Operation<unknown>, body: Script): CommandSender {
    const sender = this.replicaAcks && !body.readOnly ? replicatedSender(this.connection, this.replicaAcks) : this.connection;
    const recording = this.telemetry?.recording;
    return recording === undefined ? sender : this.counted(sender, operation.commandKind ?? "housekeeping", recording, body.readOnly);
  }

  /**
   * `sender` counting each command it sends as `kind` (an EVALSHA, and the EVAL after a NOSCRIPT);
   * a write confirmed by replicas is two: the script and its WAIT.
   */
  private counted(sender: CommandSender, kind: CommandKind, recording: Recorder, readOnly: boolean): CommandSender {
    const perCommand = this.replicaAcks && !readOnly ? 2 : 1;
    return {
      sendCommand: (args, firstKey) => {
        recording.commands(kind, perCommand);
        return sender.sendCommand(args, firstKey);
      },
    };
  }
}
