/**
 * The doctor's two chunked passes over one queue: its hash (HSCAN: fields without their message,
 * bodies without a member, fields nobody knows) and its sorted set (ZSCAN: members without a
 * body). Each chunk is one read-only look; with `fix`, what it found is repaired by one more
 * script that checks each item again, so a send, receive or delete running meanwhile is never
 * undone. The hash goes first: a member without a body then takes its own fields with it.
 */
import type { QueueKeys } from "../keys";
import type { DoctorPort } from "./doctor-port";
import { lookAtFields, lookAtMembers, repairFields, repairMembers } from "./doctor-operations";
import type { FieldFinding } from "./doctor-operations";
import type { FindingTally } from "./finding-tally";

export interface PassSettings {
  readonly chunk: number;
  readonly fix: boolean;
}

function outcome(fix: boolean, repaired: boolean | undefined): "fixed" | "resolved" | undefined {
  if (!fix) return undefined;
  return repaired ? "fixed" : "resolved";
}

export async function passOverHash(
  port: DoctorPort,
  tally: FindingTally,
  qname: string,
  keys: QueueKeys,
  settings: PassSettings,
): Promise<void> {
  let cursor = "0";
  do {
    const page = await port.run(() => lookAtFields(keys, cursor, settings.chunk));
    cursor = page.cursor;
    const repairable: FieldFinding[] = [];
    for (const finding of page.found) {
      if (finding.kind === "unknownField") tally.add("unknownField", { qname, item: finding.field });
      else repairable.push(finding);
    }
    const repaired = settings.fix && repairable.length > 0 ? await port.run(() => repairFields(keys, repairable)) : [];
    repairable.forEach(({ kind, field }, i) => tally.add(kind, { qname, item: field }, outcome(settings.fix, repaired[i])));
  } while (cursor !== "0");
}

export async function passOverSet(
  port: DoctorPort,
  tally: FindingTally,
  qname: string,
  keys: QueueKeys,
  settings: PassSettings,
): Promise<void> {
  let cursor = "0";
  do {
    const page = await port.run(() => lookAtMembers(keys, cursor, settings.chunk));
    cursor = page.cursor;
    const members = page.found;
    const repaired = settings.fix && members.length > 0 ? await port.run(() => repairMembers(keys, members)) : [];
    members.forEach((member, i) => tally.add("memberWithoutBody", { qname, item: member }, outcome(settings.fix, repaired[i])));
  } while (cursor !== "0");
}
