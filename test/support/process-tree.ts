/**
 * Ending a mocha pass together with the processes its tests started (redis-servers, child
 * instances): killed alone, those would outlive it, and, holding its output pipes, keep npm test
 * waiting for them.
 */
import { readdirSync, readFileSync } from "fs";

/** `pid` and every process below it (read from /proc; where there is none, `pid` alone). */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number>();
  let entries: string[] = [];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [pid];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // "pid (command) state ppid ...": the command may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  return tree;
}

/** SIGKILL to `pid` and every process below it. */
export function killTree(pid: number | undefined): void {
  if (pid === undefined) return;
  for (const each of processTree(pid)) {
    try {
      process.kill(each, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
