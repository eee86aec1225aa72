import { isNotFound, isRedirect } from "@tanstack/react-router";
import { StrictMode, type ErrorInfo } from "react";
import { App } from "./app/App";
import { mountApp } from "./app/mount";
import { createAppQueryClient } from "./app/query-client";
import { logRenderError } from "./app/render-errors";
import { createAppRouter } from "./app/router";
import { initAnalytics } from "./lib/analytics";
import { initMonitoring, reportRenderError, type RenderErrorKind } from "./lib/monitoring";
import "./styles.css";
import "./features/features.css";

// Every React root error callback logs to the console (with the component stack) and
// reports to error monitoring, which is a no-op unless a DSN is configured.
function handleRenderError(kind: RenderErrorKind) {
  return (error: unknown, errorInfo: ErrorInfo) => {
    if (kind === "recoverable") {
      console.error("Recoverable render error:", error, `\nComponent stack:${errorInfo.componentStack ?? " (unavailable)"}`);
    } else {
      logRenderError(error, errorInfo);
    }
    // The router throws these through React boundaries as control flow, not as failures.
    if (isNotFound(error) || isRedirect(error)) return;
    reportRenderError(kind, error, errorInfo);
  };
}

mountApp(
  document.getElementById("root"),
  () => {
    const queryClient = createAppQueryClient();
    const router = createAppRouter(queryClient);
    // Started only when the app really mounts; both load their SDK in the background, and
    // only when configured, so first render never waits for them.
    void initMonitoring({ router });
    initAnalytics();
    return (
      <StrictMode>
        <App router={router} queryClient={queryClient} />
      </StrictMode>
    );
  },
  {
    onCaughtError: handleRenderError("caught"),
    onUncaughtError: handleRenderError("uncaught"),
    onRecoverableError: handleRenderError("recoverable"),
  },
);
