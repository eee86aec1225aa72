import type { QueryClient } from "@tanstack/react-query";
import { createRouter, type RouterHistory } from "@tanstack/react-router";
import { NotFoundScreen } from "../components/NotFoundScreen";
import { RouteErrorScreen } from "../components/RouteErrorScreen";
import { invalidateSessionOnApiAuthError } from "../lib/session/gate";
import { routeTree } from "../routeTree.gen";

// docs/requirements.md "Screens", "Limits": preload on hover/focus after a short pause so passing the pointer over a
// link does not fire requests, and keep preloaded data for 10 minutes.
export const ROUTE_PRELOAD_DELAY_MS = 250;
export const ROUTE_PRELOAD_STALE_TIME_MS = 600_000;

export interface RouterContext {
  queryClient: QueryClient;
}

export function createAppRouter(queryClient: QueryClient, history?: RouterHistory) {
  // Wired here because this is where the query client meets the router's auth gate.
  invalidateSessionOnApiAuthError(queryClient);
  return createRouter({
    routeTree,
    context: { queryClient } satisfies RouterContext,
    ...(history ? { history } : {}),
    defaultPreload: "intent",
    defaultPreloadDelay: ROUTE_PRELOAD_DELAY_MS,
    defaultPreloadStaleTime: ROUTE_PRELOAD_STALE_TIME_MS,
    scrollRestoration: true,
    // Routes without their own screens use ours rather than the library's bare fallbacks.
    defaultNotFoundComponent: NotFoundScreen,
    defaultErrorComponent: RouteErrorScreen,
  });
}

export type AppRouter = ReturnType<typeof createAppRouter>;

declare module "@tanstack/react-router" {
  interface Register {
    router: AppRouter;
  }
}
