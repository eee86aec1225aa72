import { createFileRoute, redirect } from "@tanstack/react-router";
import { SignInPanel } from "../../components/SignInPanel";
import { consumeAuthRedirect, safeRedirectPath } from "../../lib/auth-redirect";
import { fetchSessionUser } from "../../lib/session/query";
import { brand } from "../../lib/site-config";

export const Route = createFileRoute("/_public/")({
  // The gate sends visitors here with `redirect` when it found no session, including when
  // the check failed. If they turn out to be signed in after all (the auth service was
  // briefly down, or they signed in in another tab), take them where they were going.
  beforeLoad: async ({ context, search, preload }) => {
    const destination = safeRedirectPath(search.redirect);
    if (preload || !destination) return;
    const user = await fetchSessionUser(context.queryClient).catch(() => null);
    if (!user) return;
    consumeAuthRedirect(); // the saved copy of this destination is used up
    throw redirect({ href: destination, replace: true });
  },
  component: HomePage,
});

const STEPS = [
  {
    title: "Upload a recording",
    text: "Audio or video up to 100 MB: MP3, WAV, M4A, FLAC, OGG, WebM or MP4.",
  },
  {
    title: "Pick a model and language",
    text: "Choose the speech model and the spoken language, and translate to English if you need to.",
  },
  {
    title: "Read along as it plays",
    text: "Every line of the transcript is timed, so you can play the recording and follow the text.",
  },
  {
    title: "Keep it organised",
    text: "Rename and delete transcripts, or export them as TXT, DOCX, PDF or SRT subtitles.",
  },
] as const;

// The free allowance is a server setting (spec: "the number comes from the server"), and
// /api/v1/trial-limits needs a session, so the public page describes the tiers without it.
const TIERS = [
  {
    name: "Free",
    price: "No card needed",
    points: ["A trial allowance of audio minutes, set by this server", "Every model this server runs", "Exports in TXT, DOCX, PDF and SRT"],
  },
  {
    name: "Premium",
    price: "Paid subscription",
    points: ["Transcribe without the trial limit", "Manage or cancel any time in the billing portal", "Everything in Free"],
  },
] as const;

function HomePage() {
  const { redirect, error } = Route.useSearch();

  return (
    <div className="container home">
      <section className="hero" aria-labelledby="home-title">
        <h1 id="home-title">{brand}</h1>
        <p className="lead">Turn audio and video into timed transcripts you can play along with.</p>
        <p className="muted">
          Upload a file, pick a speech model and language, and get a transcript with timestamps for every segment.
          Rename, delete and export your transcripts whenever you like.
        </p>
        <ol className="steps">
          {STEPS.map((step) => (
            <li key={step.title}>
              <h2>{step.title}</h2>
              <p>{step.text}</p>
            </li>
          ))}
        </ol>
        <section className="pricing" aria-labelledby="pricing-title">
          <h2 id="pricing-title">Pricing</h2>
          <ul className="tiers">
            {TIERS.map((tier) => (
              <li key={tier.name} className="tier">
                <h3>{tier.name}</h3>
                <p className="muted">{tier.price}</p>
                <ul>
                  {tier.points.map((point) => (
                    <li key={point}>{point}</li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </section>
      </section>
      <SignInPanel redirect={redirect} linkError={error} />
    </div>
  );
}
