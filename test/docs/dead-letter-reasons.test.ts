/**
 * Every list of dead-letter reasons in the docs is the code's list (DEAD_LETTER_REASONS, which
 * redrive checks and the command line offers): all of them, in its order. A list of only the
 * Worker's own stops (WORKER_STOP_REASONS, what its events carry) is right where it describes a
 * Worker's stops, and then its sentence names the rest too, saying where they come from. A list is
 * two or more reason names joined by commas, "or", "|" or "/", quoted or in code or not.
 */
import { expect } from "chai";
import { readdirSync } from "fs";
import { DEAD_LETTER_REASONS, WORKER_STOP_REASONS } from "../../lib/dead-letters/reasons";
import { readDoc, repositoryRoot } from "../support/markdown";
import { runsOn } from "../support/targets";

runsOn("single");

const NAME = `[\`"]*\\b(?:${DEAD_LETTER_REASONS.join("|")})\\b[\`"]*`;
const JOIN = String.raw`(?:\s*,\s*or\s+|\s*,\s*|\s+or\s+|\s*\|\s*|\s*\/\s*)`;
const LIST = new RegExp(`${NAME}(?:${JOIN}${NAME})+`, "g");

/** The reason names in `text`, in order. */
function namesIn(text: string): string[] {
  return [...text.matchAll(new RegExp(`\\b(?:${DEAD_LETTER_REASONS.join("|")})\\b`, "g"))].map((match) => match[0]);
}

/** Each line of a fenced block alone, each prose paragraph, list item or table row as one. */
function units(markdown: string): string[] {
  const found: string[] = [];
  let paragraph: string[] = [];
  let fenced = false;
  const flush = (): void => {
    if (paragraph.length > 0) found.push(paragraph.join(" "));
    paragraph = [];
  };
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) {
      flush();
      fenced = !fenced;
    } else if (fenced) found.push(line);
    else if (line.trim() === "") flush();
    else {
      // A list item or a table row starts a unit of its own.
      if (/^\s*([-*|]|\d+\.)\s/.test(line)) flush();
      paragraph.push(line.trim());
    }
  }
  flush();
  return found;
}

/** A paragraph's sentences (a full stop, then a capital, a backtick or a parenthesis). */
function sentences(unit: string): string[] {
  return unit.split(/(?<=\.)\s+(?=[A-Z`(])/);
}

/** What is wrong with the lists of reasons in `markdown`, one line each, naming `file`. */
function problemsIn(file: string, markdown: string): string[] {
  const problems: string[] = [];
  for (const unit of units(markdown)) {
    for (const sentence of sentences(unit)) {
      for (const match of sentence.matchAll(LIST)) {
        const names = namesIn(match[0]);
        if (names.join() === DEAD_LETTER_REASONS.join()) continue;
        const others = DEAD_LETTER_REASONS.filter((reason) => !names.includes(reason));
        const workers = names.join() === WORKER_STOP_REASONS.join();
        if (workers && others.every((reason) => namesIn(sentence).includes(reason))) continue;
        problems.push(`${file}: "${match[0]}" lists ${names.join(", ")}; the reasons are ${DEAD_LETTER_REASONS.join(", ")}: "${sentence}"`);
      }
    }
  }
  return problems;
}

/** The lists of reasons in `markdown`. */
function listsIn(markdown: string): string[] {
  return units(markdown).flatMap((unit) => [...unit.matchAll(LIST)].map((match) => match[0]));
}

const FILES = [
  "README.md",
  ...readdirSync(`${repositoryRoot}/docs`)
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

describe("Documentation: every list of dead-letter reasons is the code's", () => {
  it("the code's list: the Worker's stops, then retention's", () => {
    expect(DEAD_LETTER_REASONS).to.deep.equal(["poison", "exhausted", "expired"]);
    expect(WORKER_STOP_REASONS).to.deep.equal(DEAD_LETTER_REASONS.slice(0, 2));
  });

  it("finds lists in their usual forms, and tells a short one", () => {
    const sample = [
      '`reason` (`"poison"`, `"exhausted"` or `"expired"`) and `--reason poison|exhausted|expired`.',
      "By why (`poison`, `exhausted`, `expired`).",
      "Why (poison / exhausted), last error.",
      'A dead letter\'s `reason` is `"poison"` or `"exhausted"`.',
      'The Worker\'s events carry `"poison"` or `"exhausted"` (`"expired"` comes from retention).',
      "Poison messages and expired ones are not a list.",
    ].join("\n\n");
    expect(listsIn(sample)).to.have.length(6);
    const problems = problemsIn("sample.md", sample);
    expect(problems).to.have.length(2);
    expect(problems[0]).to.include('"poison / exhausted" lists poison, exhausted');
    expect(problems[1]).to.include('"`"poison"` or `"exhausted"`" lists poison, exhausted');
  });

  it("the docs that describe dead letters and redrive have lists to check", () => {
    for (const file of ["docs/api.md", "docs/retries.md", "docs/cli.md", "docs/telemetry.md"]) {
      expect(listsIn(readDoc(file)), file).to.not.be.empty;
    }
  });

  it("each list in README.md and docs/ is the code's, or the Worker's own stops with the rest named beside them", () => {
    expect(FILES.flatMap((file) => problemsIn(file, readDoc(file)))).to.deep.equal([]);
  });
});
