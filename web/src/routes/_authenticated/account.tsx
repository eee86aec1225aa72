import { createFileRoute } from "@tanstack/react-router";
import { pageTitle } from "../../lib/site-config";

export const Route = createFileRoute("/_authenticated/account")({
  head: () => ({ meta: [{ title: pageTitle("Account Settings") }] }),
  component: AccountPage,
});

function AccountPage() {
  return (
    <div className="container">
      <header className="page-header">
        <h1>Account Settings</h1>
        <p className="muted">
          Your e-mail address, password, linked sign-in accounts, subscription and account deletion will be managed here.
        </p>
      </header>
    </div>
  );
}
