/**
 * `doctor [--fix]`: what is out of place in the namespace (message fields without their message,
 * registry entries without a queue, settings rsmq 0.12.4 would refuse, ...), one line per kind
 * with its counts and a few examples; with --fix, repaired in small chunks. Exit 1 while anything
 * is still out of place, so a script or a cron job notices.
 */
import type { Command } from "commander";
import { count } from "../arguments";
import { run } from "../context";
import { withQueue } from "../connect";
import { CliError, EXIT_FAILURE } from "../errors";
import { plural } from "../format";
import type { Output } from "../output";
import type { DoctorFinding, DoctorFindingKind, DoctorReport } from "../../types";

interface DoctorCommandOptions {
  fix?: boolean;
  queue?: string[];
  chunk?: number;
}

/** What each kind is, in a few words, for people. */
const WHAT: Readonly<Record<DoctorFindingKind, string>> = {
  fieldWithoutMessage: "message fields whose message is gone",
  memberWithoutBody: "message ids with no body (rsmq 0.12.4 would deliver message: null)",
  bodyWithoutMember: "message bodies no receive can reach",
  staleFairTag: "tenants' fair tags no send reads any more",
  registryWithoutQueue: "names in the queue list with no queue",
  queueNotInRegistry: "queues missing from the queue list",
  missingSetting: "queues lacking vt, delay or maxsize (rsmq 0.12.4: queueNotFound)",
  invalidRetention: "retention values that are not whole seconds",
  invalidSetting: "settings rsmq 0.12.4 would refuse or misread (fix by hand: rsmq-next set)",
  unknownField: "queue fields that are neither settings nor messages (look by hand)",
  leftoverHash: "queue hashes without settings (createQueue revives, DEL removes)",
  expired: "messages past their queue's retention",
};

function findingLine(out: Output, finding: DoctorFinding, fix: boolean): string {
  const c = out.color;
  const counts = [`${finding.found} found`];
  if (fix) counts.push(finding.repairable ? `${finding.fixed} fixed` : "not repairable");
  if (finding.left > 0 && (fix || finding.left !== finding.found)) counts.push(`${finding.left} left`);
  const examples = finding.examples.map(({ qname, item, detail }) => `${qname} ${item}${detail ? ` (${detail})` : ""}`);
  const more = finding.found > examples.length ? ", ..." : "";
  const paint = finding.left > 0 ? c.yellow : c.green;
  return `${paint(finding.kind)}: ${counts.join(", ")}: ${WHAT[finding.kind]}; ${c.dim(`e.g. ${examples.join(", ")}${more}`)}`;
}

function summary(report: DoctorReport): string {
  const looked = `namespace ${report.ns}: ${plural(report.queues, "queue")} looked at`;
  if (report.findings.length === 0) return `${looked}, all in place`;
  if (report.left === 0) return `${looked}, everything out of place was repaired`;
  return `${looked}, ${plural(report.left, "thing")} still out of place`;
}

export function register(program: Command): void {
  program
    .command("doctor")
    .description("find what is out of place in the namespace (orphaned message fields, queue list, settings); --fix repairs it")
    .option("--fix", "repair what can be repaired, in small chunks, safe while producers and consumers run")
    .option("--queue <qname...>", "look at these queues only (and their queue-list entries)")
    .option("--chunk <n>", "fields or members per script call, 1 to 1000 (default 200)", count)
    .action((options: DoctorCommandOptions, command: Command) =>
      run(command, async ({ server, out }) => {
        const report = await withQueue(server, (rsmq) =>
          rsmq.doctorAsync({ fix: Boolean(options.fix), qnames: options.queue, chunk: options.chunk }),
        );
        if (out.json) out.data(report);
        else {
          for (const finding of report.findings) out.line(findingLine(out, finding, report.fix));
          out.line(summary(report));
        }
        if (report.left > 0) {
          const hint = report.fix
            ? "what --fix leaves needs a person: see docs/cli.md (rsmq-next doctor)"
            : "rsmq-next doctor --fix repairs what can be repaired";
          throw new CliError(`${plural(report.left, "thing")} out of place in namespace ${report.ns}`, EXIT_FAILURE, hint);
        }
      }),
    );
}
