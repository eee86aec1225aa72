// The transcript page's own error screen (docs/requirements.md "Screens"): a transcript that fails to load is
// usually one that was deleted or a dropped connection, so the way out is back to the
// list, inside the dashboard layout, rather than the root's full-page crash screen.
import { Link, useRouter, type ErrorComponentProps } from "@tanstack/react-router";
import { useEffect, useRef } from "react";
import { ApiError } from "../lib/api/errors";

const FALLBACK_REASON = "It may have been deleted, or the connection was interrupted.";

export function TranscriptErrorScreen({ error, reset }: ErrorComponentProps) {
  const router = useRouter();
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => headingRef.current?.focus(), []);

  // API errors carry messages written for users (e.g. "Transcript not found"); anything
  // else is a bug whose text would mean nothing to them.
  const reason = error instanceof ApiError ? error.message : FALLBACK_REASON;

  return (
    <section className="status-screen" aria-labelledby="transcript-error-title">
      <div className="status-card">
        <h1 id="transcript-error-title" ref={headingRef} tabIndex={-1}>
          Could not load this transcript
        </h1>
        <p className="status-text">{reason}</p>
        <div className="button-row">
          <button
            type="button"
            className="button"
            onClick={() => {
              // Resetting alone would show the same failed load; invalidating reruns it.
              reset();
              void router.invalidate();
            }}
          >
            Try again
          </button>
          <Link to="/dashboard" className="button button-primary">
            Back to your transcriptions
          </Link>
        </div>
      </div>
    </section>
  );
}
