/**
 * The targets a suite runs on, declared by one line at its top, after the imports:
 * `runsOn("single", "cluster", "ioredis")`. The pass runner reads that line from each suite's
 * source to choose the files of each pass (suite-targets.ts), and fails the run on a suite
 * without one.
 */

/**
 * Where a pass runs: one redis-server (`single`), a local Redis Cluster (`cluster`,
 * RSMQ_TEST_TARGET=cluster), or the single server through ioredis clients (`ioredis`,
 * RSMQ_TEST_TARGET=ioredis). See server.ts.
 */
export const TARGETS = ["single", "cluster", "ioredis"] as const;

/** One of {@link TARGETS}. */
export type Target = (typeof TARGETS)[number];

/**
 * Declares the targets this suite runs on. It does nothing at run time: the pass runner reads the
 * call from the source, so it must be one top-level line of string literals; the parameter type
 * makes a misspelt target fail `tsc`.
 */
export function runsOn(...targets: [Target, ...Target[]]): void {
  void targets; // read from the source by suite-targets.ts; nothing to do when the suite loads
}
