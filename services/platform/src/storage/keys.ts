import { AppError } from "../errors.js";

/** S3's own ceiling, so a key accepted here is accepted by every adapter. */
export const MAX_KEY_LENGTH = 1024;
/**
 * Below the usual 255-byte file-name limit with room for the local adapter's sidecar and
 * temp-file suffixes, which are appended to the last segment.
 */
export const MAX_KEY_SEGMENT_LENGTH = 200;

// Every character here is URL-unreserved and means nothing to any file system, so a key
// maps to the same path on every platform and to the same URL path without escaping.
const SEGMENT_CHARS = /^[A-Za-z0-9._-]+$/;

/**
 * The single gate for object keys. Everything that turns a key into a path, a URL or an
 * S3 request calls it first, so there is exactly one definition of "safe key".
 */
export function assertValidKey(key: unknown): asserts key is string {
  const problem = keyProblem(key, false);
  if (problem) throw new AppError("invalid_argument", `Invalid object key: ${problem}`);
}

/**
 * A prefix for `deleteObjects`: S3 prefixes are plain string prefixes, so the last part
 * may be a partial segment ("users/42/rec" matches "users/42/recording.mp3"). A trailing
 * "/" restricts it to whole segments. Empty is refused so a bug cannot purge everything.
 */
export function assertValidKeyPrefix(prefix: unknown): asserts prefix is string {
  const problem =
    typeof prefix === "string" && prefix.endsWith("/")
      ? keyProblem(prefix.slice(0, -1), false)
      : keyProblem(prefix, true);
  if (problem) throw new AppError("invalid_argument", `Invalid object key prefix: ${problem}`);
}

function keyProblem(key: unknown, lastIsPartial: boolean): string | undefined {
  if (typeof key !== "string") return "must be a string";
  if (key.length === 0) return "must not be empty";
  if (key.length > MAX_KEY_LENGTH) return `must be at most ${MAX_KEY_LENGTH} characters`;
  if (key.startsWith("/")) return "must be relative (no leading '/')";
  const segments = key.split("/");
  for (const [index, segment] of segments.entries()) {
    const partial = lastIsPartial && index === segments.length - 1;
    const problem = segmentProblem(segment, partial);
    if (problem) return problem;
  }
  return undefined;
}

function segmentProblem(segment: string, partial: boolean): string | undefined {
  if (segment.length === 0) return "must not contain empty segments ('//' or a trailing '/')";
  if (segment === "." || segment === "..") return "'.' and '..' segments are not allowed";
  if (segment.length > MAX_KEY_SEGMENT_LENGTH) {
    return `each segment must be at most ${MAX_KEY_SEGMENT_LENGTH} characters`;
  }
  if (!SEGMENT_CHARS.test(segment)) {
    return "segments may contain only letters, digits, '.', '_' and '-'";
  }
  // Windows silently drops trailing dots, which would make "a." and "a" the same file.
  // A partial prefix segment is only compared as a string, never used as a path.
  if (!partial && segment.endsWith(".")) return "segments must not end with '.'";
  return undefined;
}
