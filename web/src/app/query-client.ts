// Data-fetching defaults from the spec (docs/requirements.md "Errors", "Limits").
import { QueryClient } from "@tanstack/react-query";

export const QUERY_STALE_TIME_MS = 5 * 60 * 1000;
export const QUERY_GC_TIME_MS = 15 * 60 * 1000;
export const MAX_QUERY_RETRIES = 3;
const FIRST_RETRY_DELAY_MS = 1000;
const MAX_RETRY_DELAY_MS = 30_000;

// Read structurally rather than importing the API client's error class: the client is a
// later issue, and it reports a `kind` plus an HTTP `status` when the server answered.
interface ErrorShape {
  kind?: unknown;
  status?: unknown;
}

/** Only failures a retry can fix: lost connection, timeout, or a 5xx from the server. */
export function isRetryableError(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { kind, status } = error as ErrorShape;
  if (typeof status === "number") return status >= 500 && status <= 599;
  return kind === "network" || kind === "timeout";
}

/** `failureCount` is how many attempts have failed so far, starting at 0 for the first retry. */
export function shouldRetryQuery(failureCount: number, error: unknown): boolean {
  return failureCount < MAX_QUERY_RETRIES && isRetryableError(error);
}

export function queryRetryDelay(failureCount: number): number {
  if (failureCount <= 0) return FIRST_RETRY_DELAY_MS;
  return Math.min(2 ** failureCount * 1000, MAX_RETRY_DELAY_MS);
}

export function createAppQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: QUERY_STALE_TIME_MS,
        gcTime: QUERY_GC_TIME_MS,
        refetchOnWindowFocus: false,
        refetchOnMount: true,
        refetchOnReconnect: true,
        retry: shouldRetryQuery,
        retryDelay: queryRetryDelay,
      },
      // A retried mutation could upload, rename or charge twice.
      mutations: { retry: false },
    },
  });
}
