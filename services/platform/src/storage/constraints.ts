import { AppError } from "../errors.js";

/** SigV4's limit for presigned URLs; the local adapter keeps it so both behave alike. */
export const MAX_PRESIGN_EXPIRES_SECONDS = 7 * 24 * 60 * 60;
export const MAX_FILE_NAME_LENGTH = 1024;

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
// RFC 9110 media type with optional parameters; quoted values without escapes. Strict on
// purpose: the value is echoed into a response header and into a signed URL.
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\x00-\\x1f\\x7f]*"))*$`);

export function assertValidContentType(contentType: unknown): asserts contentType is string {
  if (typeof contentType !== "string" || contentType.length > 255 || !MEDIA_TYPE.test(contentType)) {
    throw new AppError("invalid_argument", "Content type must be a valid media type such as audio/mpeg");
  }
}

export function assertValidContentLength(length: unknown): asserts length is number {
  if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) {
    throw new AppError("invalid_argument", "Content length must be a non-negative integer");
  }
}

export function assertValidExpiresIn(seconds: unknown): asserts seconds is number {
  if (
    typeof seconds !== "number" ||
    !Number.isSafeInteger(seconds) ||
    seconds < 1 ||
    seconds > MAX_PRESIGN_EXPIRES_SECONDS
  ) {
    throw new AppError(
      "invalid_argument",
      `URL lifetime must be a whole number of seconds between 1 and ${MAX_PRESIGN_EXPIRES_SECONDS}`,
    );
  }
}

export function assertValidFileName(fileName: unknown): asserts fileName is string {
  if (typeof fileName !== "string" || fileName.trim().length === 0 || fileName.length > MAX_FILE_NAME_LENGTH) {
    throw new AppError("invalid_argument", `File name must be 1 to ${MAX_FILE_NAME_LENGTH} characters`);
  }
}
