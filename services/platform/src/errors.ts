/**
 * The one error type services throw across their RPC boundary. Domain code raises it
 * with a stable code and a message that may be shown to a user; the Connect server maps
 * it to the matching Connect code and the BFF maps that to an HTTP status.
 */
export type AppErrorCode =
  | "invalid_argument"
  | "unauthenticated"
  | "permission_denied"
  | "not_found"
  | "already_exists"
  | "failed_precondition"
  | "resource_exhausted"
  | "unavailable"
  | "internal";

/** The HTTP status for each code, for every plain-HTTP surface (the BFF, signed storage URLs). */
export const httpStatusOf: Readonly<Record<AppErrorCode, number>> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
  failed_precondition: 409,
  resource_exhausted: 429,
  unavailable: 503,
  internal: 500,
};

export class AppError extends Error {
  override readonly name = "AppError";
  constructor(
    readonly code: AppErrorCode,
    message: string,
    readonly detail?: Record<string, unknown>,
  ) {
    super(message);
  }
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  }
}
