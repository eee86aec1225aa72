import { createFileRoute } from "@tanstack/react-router";
import { z } from "zod";
import { TranscriptErrorScreen } from "../../components/TranscriptErrorScreen";
import { TranscriptView, transcriptionQueryOptions } from "../../features/transcript/TranscriptView";
import { pageTitle } from "../../lib/site-config";

// ?t=<seconds>: a search hit opens the transcript playing from there.
const transcriptSearchSchema = z.object({ t: z.coerce.number().nonnegative().optional().catch(undefined) });

export const Route = createFileRoute("/_authenticated/transcript/$id")({
  validateSearch: transcriptSearchSchema,
  head: () => ({ meta: [{ title: pageTitle("Transcript") }] }),
  // Loaded before the page renders so a missing or foreign transcript (404) lands on the
  // route's own error screen; the page then keeps it fresh (polling while it runs).
  loader: ({ context, params }) => context.queryClient.ensureQueryData(transcriptionQueryOptions(params.id)),
  // Its own screen (docs/requirements.md "Screens"): a failed transcript keeps the dashboard around it and offers
  // the way back to the list, instead of the root's full-page error.
  errorComponent: TranscriptErrorScreen,
  component: TranscriptPage,
});

function TranscriptPage() {
  const { id } = Route.useParams();
  const { t } = Route.useSearch();
  return (
    <div className="container">
      <TranscriptView id={id} startAt={t} />
    </div>
  );
}
