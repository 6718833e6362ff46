/**
 * The README's ACL lines (section "## ACL"), read from README.md so that the tests use exactly what
 * users are told to run.
 */
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";

export const PASSWORD = "secret";
export type Role = "producer" | "worker" | "admin";

/** The `ACL SETUSER rsmq-<role> ...` lines of the README's ACL section: the first block of each role, or the cluster ones. */
export function readmeRules(cluster: boolean): Map<Role, string[]> {
  const readme = readFileSync(join(__dirname, "..", "..", "..", "README.md"), "utf8");
  const start = readme.indexOf("\n## ACL\n");
  expect(start, "README has a ## ACL section").to.be.above(-1);
  const section = readme.slice(start + 1, readme.indexOf("\n## ", start + 1));
  const clusterAt = section.indexOf("**Redis Cluster**");
  const part = cluster ? section.slice(clusterAt) : section.slice(0, clusterAt);
  const rules = new Map<Role, string[]>();
  for (const match of part.matchAll(/^ACL SETUSER rsmq-(\w+) (.+)$/gm)) rules.set(match[1] as Role, match[2].trim().split(/\s+/));
  expect([...rules.keys()].sort()).to.deep.equal(["admin", "producer", "worker"]);
  return rules;
}

/** A README line's rules for a test user: the test's namespace and password instead of `rsmq` and `change-me`. */
export function forTest(rules: string[], ns: string): string[] {
  return rules.map((rule) => (rule === ">change-me" ? `>${PASSWORD}` : rule.replace(/^([~&])rsmq:/, `$1${ns}:`)));
}

/** The commands a line grants (`+hset`, ...), without categories. */
export function commandsOf(rules: string[]): string[] {
  return rules.filter((rule) => rule.startsWith("+") && !rule.startsWith("+@")).map((rule) => rule.slice(1));
}
