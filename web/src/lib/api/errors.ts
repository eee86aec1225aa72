// The API client's one error type; the query client's retry rule reads `kind` and `status`.

export type ApiErrorKind = "http" | "network" | "timeout" | "other" | "parse";

export const API_ERROR_MESSAGES = {
  network: "No network connection - check your connection and try again.",
  timeout: "Request timed out or was cancelled",
  other: "Request failed - either the server could not respond or there was a network / CORS issue.",
  parse: "Received malformed response from server.",
} as const satisfies Record<Exclude<ApiErrorKind, "http">, string>;

export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    /** HTTP status, only when the server answered. */
    readonly status?: number,
    /** Machine-readable code from the error body, e.g. "unauthenticated". */
    readonly code?: string,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

/**
 * The message of an HTTP error, in the spec's order: the body's detail.message, detail,
 * message, error (our BFF's `{error: {message}}` included), else the status text.
 */
export function httpErrorMessage(body: unknown, statusText: string): string {
  if (isRecord(body)) {
    const { detail, message, error } = body;
    if (isRecord(detail) && nonEmpty(detail.message)) return detail.message;
    if (nonEmpty(detail)) return detail;
    if (nonEmpty(message)) return message;
    if (nonEmpty(error)) return error;
    if (isRecord(error) && nonEmpty(error.message)) return error.message;
  }
  return statusText || "Request failed";
}

/** The error code in the body's detail (or our `{error: {code}}`), for the auth error handler. */
export function httpErrorCode(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const { detail, error, code } = body;
  if (isRecord(detail) && nonEmpty(detail.code)) return detail.code;
  if (isRecord(error) && nonEmpty(error.code)) return error.code;
  if (nonEmpty(code)) return code;
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function nonEmpty(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}
