import { createFileRoute } from "@tanstack/react-router";
import { z } from "zod";
import { TranscriptionsTable } from "../../features/transcriptions/TranscriptionsTable";
import { UploadPanel } from "../../features/upload/UploadPanel";
import { pageTitle } from "../../lib/site-config";

// `subscription=success` marks a return from checkout (spec §2, §5). Any other value is
// dropped rather than failing the page: a mangled return link must still reach the dashboard.
const dashboardSearchSchema = z.object({
  subscription: z.literal("success").optional().catch(undefined),
});

export const Route = createFileRoute("/_authenticated/dashboard")({
  validateSearch: dashboardSearchSchema,
  head: () => ({ meta: [{ title: pageTitle("Your Transcriptions") }] }),
  component: DashboardPage,
});

function DashboardPage() {
  return (
    <div className="container">
      <header className="page-header">
        <h1>Your Transcriptions</h1>
        <p className="muted">Upload a recording, pick a model and a language, and follow its progress below.</p>
      </header>
      <UploadPanel />
      <TranscriptionsTable />
    </div>
  );
}
