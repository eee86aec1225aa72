import { createFileRoute, Link } from "@tanstack/react-router";
import { brand, pageTitle } from "../../lib/site-config";

export const Route = createFileRoute("/_public/privacy")({
  head: () => ({ meta: [{ title: pageTitle("Privacy Policy") }] }),
  component: PrivacyPage,
});

function PrivacyPage() {
  return (
    <article className="container prose">
      <h1>Privacy Policy</h1>
      <p className="lead">
        {brand} keeps only what it needs to transcribe your recordings and run your account. This page explains what that
        is, where it goes and how to remove it.
      </p>

      <h2>What we store</h2>
      <ul>
        <li>
          <strong>Account:</strong> your e-mail address, and a name and picture if you add them or sign in through another
          provider.
        </li>
        <li>
          <strong>Recordings:</strong> the files you upload, plus a converted copy prepared for speech recognition.
        </li>
        <li>
          <strong>Transcripts:</strong> the text, its timings, the model and language you chose, and the name you give it.
        </li>
        <li>
          <strong>Usage and billing:</strong> how many minutes you have transcribed and, on a paid plan, your subscription
          status. Card details are handled by the payment provider and never reach us.
        </li>
      </ul>

      <h2>How recordings are processed</h2>
      <p>
        Speech recognition runs on this service's own servers by default. If the operator has enabled a hosted speech
        provider and you choose one of its models, your recording is sent to that provider only to be transcribed.
      </p>

      <h2>Analytics and error reports</h2>
      <p>
        If they are enabled, we use a product-analytics service to understand which pages and features are used, and an
        error-reporting service to learn about crashes. These receive technical information such as the page address,
        browser type and error details, not the contents of your recordings or transcripts.
      </p>

      <h2>E-mail</h2>
      <p>
        We send e-mail only for sign-in links, account security (such as confirming a new address or deleting your
        account) and billing.
      </p>

      <h2>Deleting your data</h2>
      <p>
        Deleting a transcript removes it and its recording from storage. Deleting your account removes your account,
        recordings and transcripts. Download links for exports expire after a short time.
      </p>

      <h2>Cookies and local storage</h2>
      <p>
        A cookie keeps you signed in. Your browser also remembers your theme choice. We do not use advertising cookies.
      </p>

      <h2>Questions</h2>
      <p>
        To ask about your data or request a copy of it, use the <Link to="/contact-us">contact page</Link>.
      </p>
    </article>
  );
}
