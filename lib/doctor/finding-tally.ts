/**
 * Counts what the doctor finds, by kind, with the first few of each as examples: a namespace may
 * hold millions of orphans, and the report stays small whatever it finds.
 */
import type { DoctorExample, DoctorFinding, DoctorFindingKind } from "../types";

/** How many examples a finding keeps. */
export const EXAMPLES_PER_KIND = 5;

/** Every kind, in the order the report lists them; whether `fix` repairs it. */
export const FINDING_KINDS: ReadonlyArray<readonly [DoctorFindingKind, boolean]> = [
  ["fieldWithoutMessage", true],
  ["memberWithoutBody", true],
  ["bodyWithoutMember", true],
  ["staleFairTag", true],
  ["registryWithoutQueue", true],
  ["queueNotInRegistry", true],
  ["missingSetting", true],
  ["invalidRetention", true],
  ["invalidSetting", false],
  ["unknownField", false],
  ["leftoverHash", false],
  ["expired", true],
];

export class FindingTally {
  private readonly byKind = new Map<DoctorFindingKind, DoctorFinding>();

  private entry(kind: DoctorFindingKind): DoctorFinding {
    let finding = this.byKind.get(kind);
    if (!finding) {
      const repairable = FINDING_KINDS.find(([name]) => name === kind)?.[1] ?? false;
      finding = { kind, found: 0, fixed: 0, left: 0, repairable, examples: [] };
      this.byKind.set(kind, finding);
    }
    return finding;
  }

  /** Something out of place; `outcome` says what the fix did to it (absent: nothing was tried). */
  add(kind: DoctorFindingKind, example: DoctorExample, outcome?: "fixed" | "resolved"): void {
    const finding = this.entry(kind);
    finding.found += 1;
    if (outcome === "fixed") finding.fixed += 1;
    else if (outcome === undefined) finding.left += 1;
    if (finding.examples.length < EXAMPLES_PER_KIND) finding.examples.push(example);
  }

  /** `count` things repaired by a repair that found them itself (an extra QueueRepair). */
  addFixed(kind: DoctorFindingKind, qname: string, count: number): void {
    if (count <= 0) return;
    const finding = this.entry(kind);
    finding.found += count;
    finding.fixed += count;
    if (finding.examples.length < EXAMPLES_PER_KIND) finding.examples.push({ qname, item: `${count}` });
  }

  /** The findings, in the order of FINDING_KINDS. */
  findings(): DoctorFinding[] {
    return FINDING_KINDS.flatMap(([kind]) => {
      const finding = this.byKind.get(kind);
      return finding ? [finding] : [];
    });
  }
}
