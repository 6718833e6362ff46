/**
 * Just enough Markdown for the documentation tests: sections, fenced code blocks, relative links
 * and the anchors GitHub gives headings. (github-slugger, the usual library for the last one, is
 * an ES module only since version 2, which these CommonJS tests cannot `require`.)
 */
import { readFileSync } from "fs";
import * as path from "path";

/** build/test/support/ -> the repository root. */
export const repositoryRoot = path.resolve(__dirname, "../../..");

/** A file of the repository, by its path from the root. */
export function readDoc(file: string): string {
  return readFileSync(path.join(repositoryRoot, file), "utf8");
}

export interface CodeBlock {
  /** The info string after the opening fence (`js`, `sh`, ...). */
  language: string;
  code: string;
}

/** The section under the `## <title>` heading, up to the next heading of level 1 or 2; throws if there is none. */
export function section(markdown: string, title: string): string {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line === `## ${title}`);
  if (start === -1) throw new Error(`no "## ${title}" heading`);
  const end = lines.findIndex((line, at) => at > start && /^#{1,2} /.test(line) && !inFence(lines, at));
  return lines.slice(start + 1, end === -1 ? undefined : end).join("\n");
}

/** The fenced code blocks, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const pattern = /^```(\S*)\n([\s\S]*?)^```$/gm;
  for (const match of markdown.matchAll(pattern)) blocks.push({ language: match[1], code: match[2] });
  return blocks;
}

/** The markdown with every fenced code block and inline code span blanked out, so neither is read as a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```$/gm, "").replace(/`[^`\n]*`/g, "``");
}

function inFence(lines: string[], at: number): boolean {
  return lines.slice(0, at).filter((line) => line.startsWith("```")).length % 2 === 1;
}

/** The targets of the inline links and images (`[text](target)`), outside code. */
export function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const match of prose(markdown).matchAll(/!?\[(?:[^\][]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) targets.push(match[1]);
  return targets;
}

/**
 * The anchors GitHub gives the headings of a document: the heading's text without Markdown, lower
 * case, punctuation other than `-` and `_` removed, spaces turned into `-`; a repeated one gets
 * `-1`, `-2`, ...
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const lines = markdown.split("\n");
  lines.forEach((line, at) => {
    const heading = /^#{1,6} (.+?)\s*#*$/.exec(line);
    if (!heading || inFence(lines, at)) return;
    const text = heading[1].replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/[`*_]{1,2}([^`*_]+)[`*_]{1,2}/g, "$1");
    const base = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  });
  return anchors;
}
