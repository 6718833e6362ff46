/**
 * The documentation holds together: every relative link in README.md, CONTRIBUTING.md and
 * docs/*.md points at a file or folder of the repository and, for `#anchor` links, at a heading
 * that exists in the Markdown file it names. And the README stays what a user landing from the
 * npm page needs first: short, with the install line as its first code block.
 */
import { expect } from "chai";
import { existsSync, readdirSync, statSync } from "fs";
import * as path from "path";
import { codeBlocks, headingAnchors, linkTargets, readDoc, repositoryRoot } from "../support/markdown";

/**
 * Targets that `npm run docs` generates and git ignores (the API reference): a link to one is
 * checked only where it has been built.
 */
const MADE_ELSEWHERE = new Set(["docs/reference"]);

const documents = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(path.join(repositoryRoot, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** What is wrong with `target`, linked from `from`; undefined when nothing is. */
function brokenLink(from: string, target: string): string | undefined {
  const [file, anchor] = target.split("#") as [string, string | undefined];
  const resolved = file === "" ? from : path.posix.normalize(path.posix.join(path.posix.dirname(from), file)).replace(/\/$/, "");
  if (resolved.startsWith("..")) return "points outside the repository";
  const absolute = path.join(repositoryRoot, resolved);
  if (!existsSync(absolute)) return MADE_ELSEWHERE.has(resolved) ? undefined : `no such file: ${resolved}`;
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
      const relative = linkTargets(readDoc(document)).filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
      const broken = relative.flatMap((target) => {
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

  it("README.md is at most 250 lines and opens its code with `npm install rsmq-next`", () => {
    const readme = readDoc("README.md");
    expect(readme.split("\n").length).to.be.at.most(250);
    expect(codeBlocks(readme)[0].code.trim()).to.equal("npm install rsmq-next");
  });
});
