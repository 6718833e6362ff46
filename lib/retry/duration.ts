/** Formats milliseconds like Go's time.Duration: 500ms, 5s, 1.5s, 2m0s, 1h0m0s. */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s"; // as Go prints a zero Duration
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = (ms % 60_000) / 1000;
  const secondsText = `${Number(seconds.toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${secondsText}`;
  if (minutes > 0) return `${minutes}m${secondsText}`;
  return secondsText;
}
