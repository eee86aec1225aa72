// The auth gate (docs/requirements.md "States"): runs in the beforeLoad of every authenticated route, before
// anything of the page loads.
import type { QueryClient } from "@tanstack/react-query";
import { redirect } from "@tanstack/react-router";
import { setApiAuthErrorHandler } from "../api";
import { saveAuthRedirect } from "../auth-redirect";
import { fetchSessionUser, SESSION_QUERY_KEY } from "./query";
import type { SessionUser } from "./state";

export interface GateInput {
  queryClient: QueryClient;
  /** The location being opened; `href` is relative (pathname + search + hash). */
  location: { href: string };
  /** True when the router is only preloading (hover/focus on a link), not navigating. */
  preload?: boolean;
}

/** Returns the signed-in user, or throws a redirect to / carrying the intended URL. */
export async function requireUser({ queryClient, location, preload }: GateInput): Promise<SessionUser> {
  // A failed check counts as signed out (docs/requirements.md "States"); the error stays in the query cache.
  const user = await fetchSessionUser(queryClient).catch(() => null);
  if (user) return user;

  // A preload is only a hover over a link; remembering it would send the visitor somewhere
  // they never asked to go after signing in.
  if (!preload) saveAuthRedirect(location.href);
  // replace: otherwise Back from the home page returns to the protected URL, which
  // redirects forward again and traps the visitor.
  throw redirect({ to: "/", search: { redirect: location.href }, replace: true });
}

/**
 * A 401 from the product API means the session ended behind our back (expired, revoked
 * elsewhere). Invalidating the session query refetches it; the dashboard layout watches it
 * and reruns the gate once it says nobody is signed in. 403 is left alone: it means "not
 * allowed" (e.g. 'Session is not fresh'), not "signed out".
 */
export function invalidateSessionOnApiAuthError(queryClient: QueryClient): void {
  setApiAuthErrorHandler((status) => {
    if (status === 401) void queryClient.invalidateQueries({ queryKey: SESSION_QUERY_KEY });
  });
}
