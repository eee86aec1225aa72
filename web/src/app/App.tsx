// Provider order matters: the error boundary is outermost so a failing provider still
// shows the error screen, and the toaster sits inside the theme so it matches it.
import { QueryClientProvider, type QueryClient } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { AppErrorBoundary } from "../components/AppErrorBoundary";
import { AppToaster } from "../components/AppToaster";
import { NetworkStatusWatcher } from "../lib/network";
import { APP_DEFAULT_THEME, DEFAULT_THEME_STORAGE_KEY, ThemeProvider } from "../theme/ThemeProvider";
import type { AppRouter } from "./router";

export interface AppProps {
  router: AppRouter;
  queryClient: QueryClient;
}

export function App({ router, queryClient }: AppProps) {
  return (
    <AppErrorBoundary>
      <QueryClientProvider client={queryClient}>
        <ThemeProvider defaultTheme={APP_DEFAULT_THEME} storageKey={DEFAULT_THEME_STORAGE_KEY}>
          <AppToaster />
          {/* Once for the whole app, outside the router, so navigation never re-subscribes it. */}
          <NetworkStatusWatcher />
          <RouterProvider router={router} />
        </ThemeProvider>
      </QueryClientProvider>
    </AppErrorBoundary>
  );
}
