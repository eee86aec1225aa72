// Product analytics facade. Screens call capture()/identifyUser() without knowing which
// service sits behind it. PostHog is used only when the operator sets VITE_POSTHOG_KEY: a
// self-hosted install with no analytics configured loads nothing and sends nothing.
//
// posthog-js is imported dynamically, so a build without a key never fetches its chunk and
// a build with one does not block first render on it. Calls made before it has loaded are
// chained on the same promise, so they run in the order they were made.

export type AnalyticsProps = Record<string, string | number | boolean | null | undefined>;

/** Event recorded when a visitor lands on a route that does not exist. */
export const NOT_FOUND_PAGE_VIEW_EVENT = "404_page_view";

export const DEFAULT_POSTHOG_HOST = "https://us.i.posthog.com";

/** The part of the PostHog client this app uses; the test seam fakes only this. */
export interface AnalyticsClient {
  capture(event: string, props?: AnalyticsProps): unknown;
  identify(distinctId: string, props?: AnalyticsProps): void;
  reset(): void;
  get_distinct_id(): string;
}

/** Resolves to the ready client, or null when analytics is off or failed to load. */
export type AnalyticsLoader = () => Promise<AnalyticsClient | null>;

export interface AnalyticsUser {
  id: string;
  email: string;
}

function nonBlank(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

const loadPostHog: AnalyticsLoader = async () => {
  const key = nonBlank(import.meta.env.VITE_POSTHOG_KEY);
  if (!key) return null;
  try {
    const { default: posthog } = await import("posthog-js");
    posthog.init(key, {
      api_host: nonBlank(import.meta.env.VITE_POSTHOG_HOST) ?? DEFAULT_POSTHOG_HOST,
      // Pinned defaults snapshot: page views follow client-side navigation (history changes),
      // which a single-page app needs, and an SDK upgrade cannot silently change behaviour.
      defaults: "2025-05-24",
    });
    return posthog;
  } catch (error) {
    // Analytics is never worth breaking the app for (e.g. the chunk failed to download).
    console.warn("Analytics could not be loaded; continuing without it.", error);
    return null;
  }
};

let loader: AnalyticsLoader = loadPostHog;
let clientPromise: Promise<AnalyticsClient | null> | undefined;
// undefined = no user seen yet (app start); null = seen signed out.
let lastUserId: string | null | undefined;

function withClient(run: (client: AnalyticsClient) => void): void {
  clientPromise ??= loader().catch(() => null);
  void clientPromise.then((client) => {
    if (client) run(client);
  });
}

/** Starts loading the analytics service at app start, so page views are recorded from the first page. */
export function initAnalytics(): void {
  withClient(() => {});
}

export function capture(event: string, props: AnalyticsProps = {}): void {
  withClient((client) => client.capture(event, props));
}

/**
 * Keeps the analytics person in step with the signed-in user (docs/requirements.md "States"). Called with the
 * session's user on every session change; only an id change does anything. PostHog's
 * distinct id already starting with the user id means this browser is identified as them
 * (e.g. a reload), and identifying again would be a wasted request.
 */
export function identifyUser(user: AnalyticsUser | null): void {
  const userId = user?.id ?? null;
  if (userId === lastUserId) return;
  const previousUserId = lastUserId;
  lastUserId = userId;

  if (user) {
    withClient((client) => {
      if (!client.get_distinct_id().startsWith(user.id)) client.identify(user.id, { email: user.email });
    });
  } else if (previousUserId) {
    // Signed out: start a fresh anonymous person so the next visitor is not merged with this one.
    withClient((client) => client.reset());
  }
}

/**
 * Test seam: replaces how the client is obtained and forgets all module state. Pass
 * nothing to restore the real PostHog loader.
 */
export function setAnalyticsLoaderForTests(testLoader?: AnalyticsLoader): void {
  loader = testLoader ?? loadPostHog;
  clientPromise = undefined;
  lastUserId = undefined;
}
