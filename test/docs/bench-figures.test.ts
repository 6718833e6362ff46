/**
 * The bench's figures, as a reader sees them, add up: in README.md's headline block and in
 * bench/README.md's tables each printed ratio is the ratio of the printed figures beside it (to
 * the printed precision), the machine is called quiet or loaded as the recorded load says, and the
 * duration and the connections per client are those of the recorded run (the latest full run under
 * bench/results/). bench/README.md names no deprecated method. The checker itself is shown to
 * catch each kind of mismatch on a copy of the READMEs with one figure or word changed.
 */
import { expect } from "chai";
import { readdirSync, readFileSync } from "fs";
import * as path from "path";
import { machineState } from "../../bench/machine-load";
import type { RunRecord } from "../../bench/readme-blocks";
import { figureProblems } from "../support/bench-figures";
import { readDoc, repositoryRoot } from "../support/markdown";
import { runsOn } from "../support/targets";

runsOn("single");

function latestFullRun(): { file: string; record: RunRecord } {
  const dir = path.join(repositoryRoot, "bench", "results");
  const runs = readdirSync(dir)
    .filter((name) => /^\d{4}-\d{2}-\d{2}\.json$/.test(name))
    .sort()
    .map((name) => ({ file: `bench/results/${name}`, record: JSON.parse(readFileSync(path.join(dir, name), "utf8")) as RunRecord }))
    .filter(({ record }) => record.mode === "full");
  expect(runs, "a full run under bench/results/").to.not.be.empty;
  return runs[runs.length - 1];
}

/** Methods lib/methods/queue-methods.ts (the facade's operations) marks @deprecated. */
function deprecatedMethods(): string[] {
  const source = readFileSync(path.join(repositoryRoot, "lib", "methods", "queue-methods.ts"), "utf8");
  return [...source.matchAll(/@deprecated[^]*?\*\/\s*readonly (\w+)/g)].map((match) => match[1].replace(/Async$/, ""));
}

describe("Documentation: the bench's figures add up", () => {
  const { file, record } = latestFullRun();
  const readme = readDoc("README.md");
  const benchReadme = readDoc("bench/README.md");

  it(`README.md and bench/README.md print ratios, load, duration and connections consistent with ${file}`, () => {
    expect(figureProblems(readme, benchReadme, record)).to.deep.equal([]);
  });

  it("bench/README.md names no deprecated method", () => {
    const deprecated = deprecatedMethods();
    expect(deprecated).to.include("peekDeadLetters");
    const named = deprecated.filter((name) => new RegExp(`\\b${name}(Async)?\\b`).test(benchReadme));
    expect(named, "deprecated names in bench/README.md").to.deep.equal([]);
  });

  describe("the checker catches", () => {
    /** The problems after replacing `from` by `to` once in `text`; the replacement must exist. */
    function problemsAfter(which: "readme" | "bench", from: RegExp, to: string): string[] {
      const text = which === "readme" ? readme : benchReadme;
      expect(from.test(text), `${from} in ${which}`).to.equal(true);
      const changed = text.replace(from, to);
      return which === "readme" ? figureProblems(changed, benchReadme, record) : figureProblems(readme, changed, record);
    }

    it("a headline ratio that is not the ratio of its figures", () => {
      const problems = problemsAfter(
        "readme",
        /(\| sendMessage, messages a second, 1 in flight \| [\d,]+ \| [\d,]+ \| \*\*)[\d.]+/,
        "$19.99",
      );
      expect(problems.join("\n")).to.match(/README.md headline, "sendMessage, messages a second, 1 in flight": \*\*9.99× /);
    });

    it("a throughput ratio in bench/README.md that is not the ratio of its rows", () => {
      const problems = problemsAfter("bench", /(\| rsmq-next \| sendMessage, 50 in flight \| 50 \| [\d,]+ \| )[\d.]+×/, "$19.99×");
      expect(problems.join("\n")).to.match(/throughput table, rsmq-next "sendMessage, 50 in flight": × rsmq 9.99× is not/);
    });

    it("a connections ratio that is not msg/s over rsmq's", () => {
      const problems = problemsAfter("bench", /(\| send \| rsmq-next, 2 connections \| [\d,]+ \| )[\d.]+×/, "$19.99×");
      expect(problems.join("\n")).to.match(/connections table, send rsmq-next, 2 connections: 9.99× is not/);
    });

    it("a machine called quiet or loaded against its recorded load", () => {
      const quiet = machineState(record).quiet === true;
      const problems = problemsAfter(
        "readme",
        /\b(quiet|loaded) machine \(load (at most )?/,
        quiet ? "loaded machine (load " : "quiet machine (load at most ",
      );
      expect(problems.join("\n")).to.match(
        /README.md headline: "(quiet|loaded) machine .*" but by the recorded loads it was (quiet|loaded)/,
      );
    });

    it('"one connection per client" and a duration the run did not take', () => {
      expect(problemsAfter("bench", /100-byte bodies; [^.]*\./, "100-byte bodies, one connection per client.")).to.include(
        'says "one connection per client"',
      );
      const duration = problemsAfter("bench", /took [\d.]+ minutes/, "took 7.0 minutes");
      expect(duration.join("\n")).to.match(/duration block: does not say "took [\d.]+ minutes"/);
    });
  });
});
