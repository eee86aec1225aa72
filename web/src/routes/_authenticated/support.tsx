import { createFileRoute, Link } from "@tanstack/react-router";
import { pageTitle } from "../../lib/site-config";

export const Route = createFileRoute("/_authenticated/support")({
  head: () => ({ meta: [{ title: pageTitle("Support") }] }),
  component: SupportPage,
});

function SupportPage() {
  return (
    <div className="container">
      <header className="page-header">
        <h1>Support</h1>
        <p className="muted">
          Help with your account and transcripts will be offered here. Until then, reach us through the{" "}
          <Link to="/contact-us">contact page</Link>.
        </p>
      </header>
    </div>
  );
}
