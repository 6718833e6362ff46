/**
 * The ACL lines of docs/acl.md, read from that file so that the tests use exactly what users are
 * told to run.
 */
import { expect } from "chai";
import { readFileSync } from "fs";
import { join } from "path";

export const PASSWORD = "secret";
export type Role = "producer" | "worker" | "admin";

/** The `ACL SETUSER rsmq-<role> ...` lines of docs/acl.md: those for one server, or those under "## Redis Cluster". */
export function documentedRules(cluster: boolean): Map<Role, string[]> {
  const doc = readFileSync(join(__dirname, "..", "..", "..", "docs", "acl.md"), "utf8");
  const clusterAt = doc.indexOf("\n## Redis Cluster\n");
  expect(clusterAt, "docs/acl.md has a ## Redis Cluster section").to.be.above(-1);
  const clusterPart = doc.slice(clusterAt + 1);
  const part = cluster ? clusterPart.slice(0, nextHeading(clusterPart)) : doc.slice(0, clusterAt);
  const rules = new Map<Role, string[]>();
  for (const match of part.matchAll(/^ACL SETUSER rsmq-(\w+) (.+)$/gm)) rules.set(match[1] as Role, match[2].trim().split(/\s+/));
  expect([...rules.keys()].sort()).to.deep.equal(["admin", "producer", "worker"]);
  return rules;
}

/** Where the section that opens `text` ends: at the next `## ` heading, or at the end. */
function nextHeading(text: string): number {
  const at = text.indexOf("\n## ", 1);
  return at === -1 ? text.length : at;
}

/** A documented line's rules for a test user: the test's namespace and password instead of `rsmq` and `change-me`. */
export function forTest(rules: string[], ns: string): string[] {
  return rules.map((rule) => (rule === ">change-me" ? `>${PASSWORD}` : rule.replace(/^([~&])rsmq:/, `$1${ns}:`)));
}

/** The commands a line grants (`+hset`, ...), without categories. */
export function commandsOf(rules: string[]): string[] {
  return rules.filter((rule) => rule.startsWith("+") && !rule.startsWith("+@")).map((rule) => rule.slice(1));
}
