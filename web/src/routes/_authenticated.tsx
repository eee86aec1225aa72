// Every route under here needs a signed-in user. The gate runs in beforeLoad, so nothing of
// a protected page (not even its loaders) runs for a visitor who is not signed in.
import { createFileRoute, Outlet, redirect, useRouter } from "@tanstack/react-router";
import { useEffect } from "react";
import { DashboardLayout } from "../components/DashboardLayout";
import { identifyUser } from "../lib/analytics";
import { consumeAuthRedirect, DEFAULT_SIGNED_IN_PATH } from "../lib/auth-redirect";
import { requireUser } from "../lib/session/gate";
import { useSession } from "../lib/session/use-session";

export const Route = createFileRoute("/_authenticated")({
  beforeLoad: async ({ context, location, preload }) => {
    const user = await requireUser({ queryClient: context.queryClient, location, preload });
    if (!preload) restoreSavedDestination(location);
    return { user };
  },
  component: AuthenticatedLayout,
});

function AuthenticatedLayout() {
  const router = useRouter();
  const { user: gateUser } = Route.useRouteContext();
  const session = useSession();
  // The live session shows changes (a new name or picture) without another navigation; the
  // gate's user covers the moment the query is being refetched.
  const user = session.status === "authenticated" ? session.user : gateUser;

  // The session can end while a page is open: a 401 from the API invalidates it (see
  // lib/session/gate.ts). Rerunning the gate then saves this page and goes to sign-in.
  const sessionLost = session.status === "unauthenticated" || session.status === "error";
  useEffect(() => {
    if (sessionLost) void router.invalidate();
  }, [sessionLost, router]);

  useEffect(() => {
    identifyUser({ id: user.id, email: user.email });
  }, [user.id, user.email]);

  return (
    <DashboardLayout user={user}>
      <Outlet />
    </DashboardLayout>
  );
}

/**
 * The magic-link landing (docs/requirements.md "States"): better-auth's verify endpoint redirects to the link's
 * callbackURL, which already is the saved destination, so landing there only has to forget
 * it. When the link came back to the default page instead (it was requested from a plain
 * home page while a destination was saved), go on to the saved page. Either way the saved
 * copy is used up, so it cannot hijack a later visit.
 */
function restoreSavedDestination(location: { href: string; pathname: string }): void {
  const saved = consumeAuthRedirect();
  if (saved && saved !== location.href && location.pathname === DEFAULT_SIGNED_IN_PATH) {
    throw redirect({ href: saved, replace: true });
  }
}
