/** Seconds as a whole, non-negative number of milliseconds; NaN and negatives become 0. */
export function toMilliseconds(seconds: number): number {
  return Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : 0;
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** `hh:mm:ss` (hours keep growing past 99), rounded down to the second: the txt/docx/pdf stamp. */
export function formatClock(seconds: number): string {
  const total = Math.floor(toMilliseconds(seconds) / 1000);
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor(total / 60) % 60)}:${pad(total % 60)}`;
}

/** `hh:mm:ss,mmm` (SubRip) or `hh:mm:ss.mmm` (WebVTT). */
export function formatTimecode(milliseconds: number, separator: "," | "."): string {
  const ms = Math.max(0, Math.round(milliseconds));
  const total = Math.floor(ms / 1000);
  return `${pad(Math.floor(total / 3600))}:${pad(Math.floor(total / 60) % 60)}:${pad(total % 60)}${separator}${pad(ms % 1000, 3)}`;
}

/** A duration for people: `1:02:03` or `2:03`, rounded to the second. */
export function formatDuration(seconds: number): string {
  const total = Math.round(toMilliseconds(seconds) / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor(total / 60) % 60;
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(total % 60)}` : `${minutes}:${pad(total % 60)}`;
}

/** `2024-05-06 14:03 UTC`: one unambiguous form whatever the reader's locale. */
export function formatDate(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}
