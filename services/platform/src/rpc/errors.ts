import { Code, ConnectError } from "@connectrpc/connect";
import { AppError, type AppErrorCode } from "../errors.js";

const toConnectCode: Record<AppErrorCode, Code> = {
  invalid_argument: Code.InvalidArgument,
  unauthenticated: Code.Unauthenticated,
  permission_denied: Code.PermissionDenied,
  not_found: Code.NotFound,
  already_exists: Code.AlreadyExists,
  failed_precondition: Code.FailedPrecondition,
  resource_exhausted: Code.ResourceExhausted,
  unavailable: Code.Unavailable,
  internal: Code.Internal,
};

const fromConnectCode = new Map<Code, AppErrorCode>(
  Object.entries(toConnectCode).map(([app, connect]) => [connect, app as AppErrorCode]),
);

/** Carries AppError.detail across the Connect hop without a protobuf detail type per error. */
const DETAIL_HEADER = "x-app-error-detail";

/**
 * Turns whatever a handler threw into a ConnectError. Only AppErrors keep their message:
 * anything else is an internal fault whose text could leak internals, so callers get a
 * generic message and the original goes to the log.
 */
export function toConnectError(error: unknown, onInternal: (error: unknown) => void): ConnectError {
  if (error instanceof AppError) {
    const metadata = new Headers();
    if (error.detail) metadata.set(DETAIL_HEADER, JSON.stringify(error.detail));
    return new ConnectError(error.message, toConnectCode[error.code], metadata);
  }
  if (error instanceof ConnectError) return error;
  onInternal(error);
  return new ConnectError("Internal error", Code.Internal);
}

/** The inverse, for callers: a ConnectError from another service back into an AppError. */
export function fromConnectError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const connectError = ConnectError.from(error);
  const code =
    connectError.code === Code.DeadlineExceeded || connectError.code === Code.Canceled
      ? "unavailable"
      : (fromConnectCode.get(connectError.code) ?? "internal");
  const rawDetail = connectError.metadata.get(DETAIL_HEADER);
  let detail: Record<string, unknown> | undefined;
  if (rawDetail) {
    try {
      detail = JSON.parse(rawDetail) as Record<string, unknown>;
    } catch {
      detail = undefined;
    }
  }
  return new AppError(code, connectError.rawMessage, detail);
}
