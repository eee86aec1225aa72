import { createFileRoute } from "@tanstack/react-router";
import { TranscriptErrorScreen } from "../../components/TranscriptErrorScreen";
import { pageTitle } from "../../lib/site-config";

export const Route = createFileRoute("/_authenticated/transcript/$id")({
  head: () => ({ meta: [{ title: pageTitle("Transcript") }] }),
  // Its own screen (spec §2): a failed transcript keeps the dashboard around it and offers
  // the way back to the list, instead of the root's full-page error.
  errorComponent: TranscriptErrorScreen,
  component: TranscriptPage,
});

function TranscriptPage() {
  return (
    <div className="container">
      <header className="page-header">
        <h1>Transcript</h1>
        <p className="muted">The transcript text, its timed segments and a player for the recording will appear here.</p>
      </header>
    </div>
  );
}
