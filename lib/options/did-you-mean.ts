/**
 * "Did you mean ...?" for a misspelt option name: the known name at the smallest edit distance,
 * when that distance is small for the name's length.
 */

/**
 * The edit distance between two strings: insertions, deletions, substitutions and swaps of two
 * adjacent characters each count 1 (optimal string alignment).
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate closest to `name`, ignoring case, or undefined when none is close: at most one
 * edit for names up to 4 characters, two up to 8, three for longer ones; failing that, the one
 * candidate that `name` (3 characters or more) abbreviates, such as `prio` for `priority`.
 * `spelledAs` gives the text to compare a candidate by (e.g. the last part of
 * `retry.maxDeliveries`); by default the candidate itself.
 */
export function closestName(
  name: string,
  candidates: readonly string[],
  spelledAs: (candidate: string) => string = (c) => c,
): string | undefined {
  const wanted = name.toLowerCase();
  const limit = name.length <= 4 ? 1 : name.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, spelledAs(candidate).toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : abbreviated(wanted, candidates, spelledAs);
}

/** The only candidate that starts with `wanted` (lower case, 3 characters or more); none when several do. */
function abbreviated(wanted: string, candidates: readonly string[], spelledAs: (candidate: string) => string): string | undefined {
  if (wanted.length < 3) return undefined;
  let found: string | undefined;
  for (const candidate of candidates) {
    if (!spelledAs(candidate).toLowerCase().startsWith(wanted)) continue;
    if (found !== undefined) return undefined;
    found = candidate;
  }
  return found;
}
