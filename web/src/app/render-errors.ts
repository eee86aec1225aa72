// One place that reports React render errors, used for both caught (inside an error
// boundary) and uncaught errors, so the component stack is never lost.
import { isNotFound, isRedirect } from "@tanstack/react-router";

export interface RenderErrorInfo {
  componentStack?: string | null | undefined;
}

export function logRenderError(error: unknown, errorInfo: RenderErrorInfo): void {
  // The router throws these as control flow through React boundaries; they are not failures.
  if (isNotFound(error) || isRedirect(error)) return;
  console.error("Uncaught render error:", error, `\nComponent stack:${errorInfo.componentStack ?? " (unavailable)"}`);
}
