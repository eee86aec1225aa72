// Full-page screen for anything that crashed rendering or loading. It deliberately has no
// router dependency: the top-level error boundary shows it when the router itself failed.
import { useEffect, useRef, useState } from "react";
import { formatErrorDetails } from "../lib/error-details";
import { Button, buttonClassName } from "./ui/Button";

/** How long the "Copied" confirmation stays visible after copying error details. */
export const COPY_CONFIRMATION_MS = 2000;

// The product ships with copying turned off (docs/requirements.md "Screens"); the handler is kept ready so
// enabling it later is a one-line change rather than new code.
const COPY_ERROR_DETAILS_ENABLED = false;

export interface ErrorScreenProps {
  error?: unknown;
  /** Re-renders the failed tree; "Try again" is offered only when this exists. */
  reset?: () => void;
}

export function ErrorScreen({ error, reset }: ErrorScreenProps) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState(false);

  // Move focus to the message so keyboard and screen-reader users learn what happened.
  useEffect(() => headingRef.current?.focus(), []);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), COPY_CONFIRMATION_MS);
    return () => clearTimeout(timer);
  }, [copied]);

  async function copyErrorDetails() {
    try {
      await navigator.clipboard.writeText(formatErrorDetails(error));
      setCopied(true);
    } catch {
      // Clipboard access can be refused; the details stay visible in development builds.
    }
  }

  return (
    <section className="status-screen" aria-labelledby="error-screen-title">
      <div className="status-card">
        <p className="status-code" aria-hidden="true">
          !
        </p>
        <h1 id="error-screen-title" ref={headingRef} tabIndex={-1}>
          Something went wrong
        </h1>
        <p className="status-text">We're sorry, but something unexpected happened. Please try refreshing the page.</p>
        <div className="button-row">
          {reset ? (
            <Button variant="primary" onClick={reset}>
              Try again
            </Button>
          ) : null}
          <Button onClick={() => window.location.reload()}>Reload page</Button>
          {/* A full page load, not a router link: after a crash the router may be the broken part. */}
          <a className={buttonClassName()} href="/">
            Go home
          </a>
        </div>
        <Button
          variant="ghost"
          size="sm"
          className="button-quiet"
          onClick={copyErrorDetails}
          disabled={!COPY_ERROR_DETAILS_ENABLED}
          title={COPY_ERROR_DETAILS_ENABLED ? undefined : "Copying error details is turned off"}
        >
          {copied ? "Copied" : "Copy error details"}
        </Button>
        {import.meta.env.DEV && error !== undefined ? (
          <details className="error-details">
            <summary>Error details</summary>
            <pre>{formatErrorDetails(error)}</pre>
          </details>
        ) : null}
      </div>
    </section>
  );
}
