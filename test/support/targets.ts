/**
 * The targets a suite runs on, declared by one line at its top, after the imports:
 * `runsOn("single", "cluster", "client")`. The pass runner reads that line from each suite's
 * source to choose the files of each pass (suite-targets.ts), and fails the run on a suite
 * without one.
 */

/**
 * Where a pass runs: one redis-server (`single`), a local Redis Cluster (`cluster`,
 * RSMQ_TEST_TARGET=cluster), or through a client the test passes in as `client` (`client`:
 * RSMQ_TEST_CLIENT names which, see test-clients.ts). A suite that names both `cluster` and
 * `client` also runs in the pass that passes a cluster client on the test cluster. See server.ts.
 */
export const TARGETS = ["single", "cluster", "client"] as const;

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
