// Renders the real app (providers + generated route tree) on an in-memory history, so
// tests exercise the same screens a browser would get.
import { createMemoryHistory } from "@tanstack/react-router";
import { render } from "@testing-library/react";
import { App } from "../src/app/App";
import { createAppQueryClient } from "../src/app/query-client";
import { createAppRouter } from "../src/app/router";

export function renderApp(initialEntries: string[], initialIndex = initialEntries.length - 1) {
  const history = createMemoryHistory({ initialEntries, initialIndex });
  const queryClient = createAppQueryClient();
  const router = createAppRouter(queryClient, history);
  const view = render(<App router={router} queryClient={queryClient} />);
  return { ...view, router, history };
}
