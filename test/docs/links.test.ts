/**
 * The documentation holds together: every relative link in README.md, CONTRIBUTING.md and
 * docs/*.md points at a file or folder of the repository and, for `#anchor` links, at a heading
 * that exists in the Markdown file it names. The same links work inside the package: each Markdown
 * file that `npm pack` ships links only to files it ships too, so the README read from
 * node_modules, or from a CDN serving the tarball, loses no chart and no page. And the README stays
 * what a user landing from the npm page needs first: short, with the install line as its first
 * code block.
 */
import { expect } from "chai";
import { execFile } from "child_process";
import { existsSync, readdirSync, statSync } from "fs";
import * as path from "path";
import { codeBlocks, headingAnchors, linkTargets, readDoc, repositoryRoot } from "../support/markdown";
import { runsOn } from "../support/targets";

runsOn("single");

/**
 * Files a shipped document may link to that the package leaves out: the bench's raw records (a
 * JSON file of every sample per run, tens of kB each and one more per run), linked from
 * bench/README.md, which a clone and a code host have.
 */
const NOT_SHIPPED = /^bench\/results\/[^/]+\.json$/;

const documents = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(path.join(repositoryRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The path from the repository root that `target`, linked from `from`, names (no anchor). */
function resolvedPath(from: string, target: string): string {
  const file = target.split("#")[0];
  return file === "" ? from : path.posix.normalize(path.posix.join(path.posix.dirname(from), file)).replace(/\/$/, "");
}

/** The relative link targets of a document (no `https:`, `mailto:`, ...). */
function relativeLinks(document: string): string[] {
  return linkTargets(readDoc(document)).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** What is wrong with `target`, linked from `from`; undefined when nothing is. */
function brokenLink(from: string, target: string): string | undefined {
  const anchor = target.split("#")[1] as string | undefined;
  const resolved = resolvedPath(from, target);
  if (resolved.startsWith("..")) return "points outside the repository";
  const absolute = path.join(repositoryRoot, resolved);
  if (!existsSync(absolute)) return `no such file: ${resolved}`;
  if (anchor === undefined) return undefined;
  if (statSync(absolute).isDirectory() || !resolved.endsWith(".md")) return `an anchor into ${resolved}, which is not a Markdown file`;
  return headingAnchors(readDoc(resolved)).has(anchor) ? undefined : `no heading #${anchor} in ${resolved}`;
}

describe("Documentation: links and the README's shape", () => {
  it("finds the documents to check", () => {
    expect(documents).to.include.members(["README.md", "CONTRIBUTING.md", "docs/api.md", "docs/acl.md"]);
  });

  for (const document of documents) {
    it(`${document}: every relative link resolves, anchors included`, () => {
      const broken = relativeLinks(document).flatMap((target) => {
        const problem = brokenLink(document, target);
        return problem ? [`${target}: ${problem}`] : [];
      });
      expect(broken).to.deep.equal([]);
    });
  }

  it("the link check itself finds a missing file, a missing heading and a good anchor", () => {
    expect(brokenLink("README.md", "docs/nothing-here.md")).to.equal("no such file: docs/nothing-here.md");
    expect(brokenLink("README.md", "docs/api.md#no-such-heading")).to.equal("no heading #no-such-heading in docs/api.md");
    expect(brokenLink("docs/worker.md", "api.md#new-redissmqoptions")).to.equal(undefined);
    expect(brokenLink("docs/worker.md", "#options")).to.equal(undefined);
    expect(headingAnchors("## `receiveMessageOrNextDue({ qname, vt })`\n## Batches: `a` and `b`\n## Batches: `a` and `b`")).to.deep.equal(
      new Set(["receivemessageornextdue-qname-vt-", "batches-a-and-b", "batches-a-and-b-1"]),
    );
  });

  it("a link to the generated API reference (docs/reference/, not committed) is a broken link", () => {
    expect(brokenLink("README.md", "docs/reference/")).to.equal("no such file: docs/reference");
  });

  describe("inside the package (the files `npm pack` ships)", () => {
    let shipped: Set<string>;

    before(async function () {
      this.timeout(60_000);
      shipped = new Set(await packedFiles());
    });

    /** What is wrong with `target`, linked from the shipped `from`, inside the package; undefined when nothing is. */
    function brokenInPackage(from: string, target: string): string | undefined {
      const resolved = resolvedPath(from, target);
      if (shipped.has(resolved) || NOT_SHIPPED.test(resolved)) return undefined;
      const folder = `${resolved}/`;
      return [...shipped].some((file) => file.startsWith(folder)) ? undefined : `not in the package: ${resolved}`;
    }

    it("ships the README, the docs, and what they link to", () => {
      expect([...shipped]).to.include.members(["README.md", "docs/api.md", "bench/README.md", "bench/results/idle.svg"]);
    });

    it("every relative link of every shipped Markdown file resolves inside the package (the README's first)", () => {
      const documents = [...shipped]
        .filter((file) => file.endsWith(".md"))
        .sort((a, b) => Number(b === "README.md") - Number(a === "README.md"));
      expect(documents[0]).to.equal("README.md");
      const broken = documents.flatMap((document) =>
        relativeLinks(document).flatMap((target) => {
          const problem = brokenInPackage(document, target);
          return problem ? [`${document}: ${target}: ${problem}`] : [];
        }),
      );
      expect(broken).to.deep.equal([]);
    });

    it("the check itself finds a file the package leaves out", () => {
      expect(brokenInPackage("README.md", "test/docs/links.test.ts")).to.equal("not in the package: test/docs/links.test.ts");
      expect(brokenInPackage("docs/api.md", "../bench/README.md#goals")).to.equal(undefined);
    });
  });

  it("README.md is at most 250 lines and opens its code with `npm install rsmq-next`", () => {
    const readme = readDoc("README.md");
    expect(readme.split("\n").length).to.be.at.most(250);
    expect(codeBlocks(readme)[0].code.trim()).to.equal("npm install rsmq-next");
  });
});

/**
 * The paths `npm pack` would put in the tarball, from the checkout as it is (`--dry-run`, and
 * `--ignore-scripts` so that `prepack` does not build: which files ship depends on `files` in
 * package.json, not on dist/'s contents). dist/ is left out: no document links into it.
 */
function packedFiles(): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(
      "npm",
      ["pack", "--dry-run", "--json", "--ignore-scripts"],
      { cwd: repositoryRoot, timeout: 50_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`npm pack --dry-run in ${repositoryRoot} failed: ${error.message}\n${stderr}`));
        const [report] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>;
        resolve(report.files.map((file) => file.path).filter((file) => !file.startsWith("dist/")));
      },
    );
  });
}
