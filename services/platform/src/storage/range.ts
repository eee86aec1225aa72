import type { ByteRange, ContentRange } from "./port.js";

/**
 * Reads a single-range `Range` header. Anything else (other units, several ranges, a
 * malformed or reversed range) yields undefined, which RFC 9110 allows a server to answer
 * with the whole object; only a well-formed range past the end is "unsatisfiable".
 */
export function parseRangeHeader(header: string | undefined): ByteRange | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined;
  const [, first = "", last = ""] = match;
  if (first === "" && last === "") return undefined;
  if (first === "") return { suffixLength: toPosition(last) };
  const start = toPosition(first);
  if (last === "") return { start };
  const end = toPosition(last);
  return end < start ? undefined : { start, end };
}

/** Null when unsatisfiable for an object of `size` bytes. */
export function resolveByteRange(range: ByteRange, size: number): Omit<ContentRange, "totalSize"> | null {
  if ("suffixLength" in range) {
    if (range.suffixLength <= 0 || size === 0) return null;
    return { start: Math.max(0, size - range.suffixLength), end: size - 1 };
  }
  const { start } = range;
  if (!Number.isSafeInteger(start) || start < 0 || start >= size) return null;
  const end = Math.min(range.end ?? size - 1, size - 1);
  return end < start ? null : { start, end };
}

// Digits beyond 2^53 cannot be positions in any real object; saturating keeps a huge
// start unsatisfiable and a huge end "to the end", as RFC 9110 intends.
function toPosition(digits: string): number {
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : Number.MAX_SAFE_INTEGER;
}
