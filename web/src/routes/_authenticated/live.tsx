import { createFileRoute } from "@tanstack/react-router";
import { LivePanel } from "../../features/live/LivePanel";
import { pageTitle } from "../../lib/site-config";

export const Route = createFileRoute("/_authenticated/live")({
  head: () => ({ meta: [{ title: pageTitle("Live transcription") }] }),
  component: LivePage,
});

function LivePage() {
  return (
    <div className="container">
      <header className="page-header">
        <h1>Live transcription</h1>
        <p className="muted">Transcribe a meeting, a lecture or an interview as it happens.</p>
      </header>
      <LivePanel />
    </div>
  );
}
