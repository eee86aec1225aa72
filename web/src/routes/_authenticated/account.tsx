import { createFileRoute } from "@tanstack/react-router";
import { AccountSettings } from "../../features/account/AccountSettings";
import { pageTitle } from "../../lib/site-config";
import { useSession } from "../../lib/session/use-session";

export const Route = createFileRoute("/_authenticated/account")({
  head: () => ({ meta: [{ title: pageTitle("Account Settings") }] }),
  component: AccountPage,
});

function AccountPage() {
  const { user: gateUser } = Route.useRouteContext();
  const session = useSession();
  // The live session, so a saved name shows at once; the gate's user while it refetches.
  const user = session.status === "authenticated" ? session.user : gateUser;
  return (
    <div className="container">
      <header className="page-header">
        <h1>Account Settings</h1>
        <p className="muted">Your profile, plan, e-mail address, password, linked sign-in accounts, sessions and account deletion.</p>
      </header>
      <AccountSettings user={user} />
    </div>
  );
}
