// The session as a TanStack Query query, so the auth gate (router) and the screens (hooks)
// share one cached answer and one request.
import { queryOptions, type QueryClient } from "@tanstack/react-query";
import { authApi } from "../api";
import { zGetSessionResponse } from "../api/generated/zod.gen";
import type { SessionUser } from "./state";

export const SESSION_QUERY_KEY = ["session"] as const;

export const sessionQueryOptions = queryOptions({
  queryKey: SESSION_QUERY_KEY,
  queryFn: ({ signal }) => authApi.request({ path: "/get-session", schema: zGetSessionResponse, signal }),
  // The gate holds navigation while this runs; the app's retry policy could keep a visitor
  // waiting ~7 s on a failing auth service. Failing fast sends them to the home page with
  // their destination saved, and the home page checks again (routes/_public/index.tsx).
  retry: false,
});

/**
 * The signed-in user, asking the server only when the cached answer is stale or was
 * invalidated (e.g. after a 401). Rejects when the check itself fails.
 */
export async function fetchSessionUser(queryClient: QueryClient): Promise<SessionUser | null> {
  // fetchQuery, not ensureQueryData: the latter returns cached data even once invalidated,
  // so a session the API has just rejected would still let the visitor through.
  const session = await queryClient.fetchQuery(sessionQueryOptions);
  return session?.user ?? null;
}
