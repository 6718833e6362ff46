/** Small formatters for human output: durations, ages, message previews. */
import { formatDuration } from "../retry/duration";

/** A duration for people: 350ms, 2.1s, 2m5s, 3h0m0s (above a minute, whole seconds). */
export function duration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1000) return `${whole}ms`;
  if (whole < 60_000) return formatDuration(Math.round(whole / 100) * 100);
  return formatDuration(Math.round(whole / 1000) * 1000);
}

/** How long ago an epoch-ms time was: `12s ago`. */
export function ago(epochMs: number, now = Date.now()): string {
  const ms = now - epochMs;
  return ms < 0 ? `in ${duration(-ms)}` : `${duration(ms)} ago`;
}

/** A message body on one line, control characters escaped, cut to `max` characters. */
export function preview(body: string, max = 60): string {
  const escaped = body.replace(/[\x00-\x1f\x7f]/g, (char) => {
    if (char === "\n") return "\\n";
    if (char === "\t") return "\\t";
    if (char === "\r") return "\\r";
    return `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`;
  });
  const chars = [...escaped];
  return chars.length > max ? `${chars.slice(0, max - 1).join("")}…` : escaped;
}

/** `1 message`, `2 messages`. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count} ${count === 1 ? noun : nouns}`;
}

/** A server URL with its password hidden, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return url;
  }
}

/** An epoch-ms time as `2025-01-02 10:11:12 UTC`. */
export function stamp(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
