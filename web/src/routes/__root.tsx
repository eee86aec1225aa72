import { createRootRouteWithContext, HeadContent, Outlet } from "@tanstack/react-router";
import type { RouterContext } from "../app/router";
import { NotFoundScreen } from "../components/NotFoundScreen";
import { RouteErrorScreen } from "../components/RouteErrorScreen";
import { pageTitle } from "../lib/site-config";

export const Route = createRootRouteWithContext<RouterContext>()({
  head: () => ({ meta: [{ title: pageTitle() }] }),
  component: RootLayout,
  notFoundComponent: NotFoundScreen,
  errorComponent: RouteErrorScreen,
});

function RootLayout() {
  return (
    <>
      <HeadContent />
      <a className="skip-link" href="#main-content">
        Skip to content
      </a>
      <Outlet />
    </>
  );
}
