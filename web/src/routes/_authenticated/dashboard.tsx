import { createFileRoute, Link, useNavigate } from "@tanstack/react-router";
import { buttonClassName } from "../../components/ui";
import { useCallback } from "react";
import { z } from "zod";
import { PlanCard } from "../../features/billing/PlanCard";
import { useSubscriptionReturn } from "../../features/billing/use-subscription-return";
import { TranscriptionsTable } from "../../features/transcriptions/TranscriptionsTable";
import { UploadPanel } from "../../features/upload/UploadPanel";
import { pageTitle } from "../../lib/site-config";

// `subscription=success` marks a return from checkout (docs/requirements.md "Screens", "Validation"). Any other value is
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
  const { subscription } = Route.useSearch();
  const navigate = useNavigate({ from: Route.fullPath });
  const clearSearch = useCallback(() => void navigate({ search: {}, replace: true }), [navigate]);
  const recheckEvery = useSubscriptionReturn(subscription === "success", clearSearch);
  return (
    <div className="container">
      <header className="page-header">
        <h1>Your Transcriptions</h1>
        <p className="muted">Upload a recording, pick a model and a language, and follow its progress below.</p>
        <Link to="/live" className={buttonClassName({ variant: "secondary" })}>
          Start live transcription
        </Link>
      </header>
      <PlanCard recheckEvery={recheckEvery} />
      <UploadPanel />
      <TranscriptionsTable />
    </div>
  );
}
