import { createFileRoute, Link } from "@tanstack/react-router";
import { brand, pageTitle } from "../../lib/site-config";

export const Route = createFileRoute("/_public/terms")({
  head: () => ({ meta: [{ title: pageTitle("Terms of Service") }] }),
  component: TermsPage,
});

function TermsPage() {
  return (
    <article className="container prose">
      <h1>Terms of Service</h1>
      <p className="lead">
        These terms cover your use of {brand}, a service that turns audio and video recordings into text. By creating an
        account or uploading a file you agree to them.
      </p>

      <h2>Your account</h2>
      <p>
        You sign in with your e-mail address. Keep access to that mailbox secure: anyone who can read it can sign in as
        you. You are responsible for what happens under your account.
      </p>

      <h2>Your content</h2>
      <p>
        The recordings you upload and the transcripts made from them remain yours. You give us only the permission needed
        to store, process and show them to you, and to produce the exports you ask for. Upload only material you have the
        right to use, and nothing that is unlawful or that infringes someone else's rights.
      </p>

      <h2>Transcription quality</h2>
      <p>
        Transcripts are produced automatically by speech-recognition models. They can contain mistakes, especially with
        background noise, overlapping speakers, accents or specialist vocabulary. Check important transcripts before you
        rely on them.
      </p>

      <h2>Free and paid plans</h2>
      <p>
        The free plan includes a limited amount of transcription in total; the current limit is shown in your dashboard.
        The premium plan is a paid subscription with higher limits. Subscriptions are billed in advance through our payment provider and can
        be cancelled at any time from the billing portal; cancellation takes effect at the end of the paid period.
      </p>

      <h2>Fair use</h2>
      <p>
        Do not try to break, overload or get around the limits of the service, access other people's data, or use it to
        build a competing dataset by automated means. We may suspend accounts that do.
      </p>

      <h2>Deleting your data and ending the agreement</h2>
      <p>
        You can delete individual transcripts or your whole account at any time. We may end or suspend the service for an
        account that breaks these terms. The <Link to="/privacy">privacy policy</Link> explains what happens to your data
        when it is deleted.
      </p>

      <h2>Liability</h2>
      <p>
        The service is provided as is. To the extent the law allows, we are not liable for indirect losses or for losses
        caused by relying on an uncorrected transcript.
      </p>

      <h2>Changes and questions</h2>
      <p>
        If these terms change in a way that matters, we will tell you before the change applies. Questions are welcome on
        the <Link to="/contact-us">contact page</Link>.
      </p>
    </article>
  );
}
