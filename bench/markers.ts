/**
 * Generated blocks inside hand-written Markdown: the text between `<!-- bench:<name>:start -->`
 * and `<!-- bench:<name>:end -->` belongs to the bench, everything else to the people editing the
 * file. HTML comments do not render on GitHub or npm.
 */

export function startMarker(name: string): string {
  return `<!-- bench:${name}:start -->`;
}

export function endMarker(name: string): string {
  return `<!-- bench:${name}:end -->`;
}

/** Where `marker` stands on a line of its own (so prose that quotes a marker is not one). */
function occurrences(text: string, marker: string): number[] {
  const line = new RegExp(`^[ \\t]*${marker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}[ \\t\\r]*$`, "gm");
  return [...text.matchAll(line)].map((match) => match.index + match[0].indexOf(marker));
}

/**
 * `text` with the block `name` holding `content` between the two markers, each on a line of its own,
 * or undefined when `text` has neither marker, so the caller can leave such a file alone. A block
 * that is half there (one marker, either twice, end before start) throws rather than guess.
 */
export function replaceBlock(text: string, name: string, content: string): string | undefined {
  const start = startMarker(name);
  const end = endMarker(name);
  const starts = occurrences(text, start);
  const ends = occurrences(text, end);
  if (starts.length === 0 && ends.length === 0) return undefined;
  if (starts.length !== 1 || ends.length !== 1 || ends[0] < starts[0]) {
    throw new Error(
      `Expected one ${start} followed by one ${end}, found ${starts.length} start and ${ends.length} end marker(s)` +
        (starts.length === 1 && ends.length === 1 ? " with the end first" : ""),
    );
  }
  const body = content.replace(/^\n+|\s+$/g, "");
  return `${text.slice(0, starts[0] + start.length)}\n${body}\n${text.slice(ends[0])}`;
}
