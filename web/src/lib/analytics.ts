// Product analytics facade. Screens call capture() without knowing which service sits
// behind it, so PostHog can be wired in a later issue without touching any screen.
// Until then every call is a deliberate no-op: a self-hosted install with no analytics
// configured must not send anything anywhere.

export type AnalyticsProps = Record<string, string | number | boolean | null | undefined>;

/** Event recorded when a visitor lands on a route that does not exist. */
export const NOT_FOUND_PAGE_VIEW_EVENT = "404_page_view";

export function capture(event: string, props: AnalyticsProps = {}): void {
  // PostHog is wired in a later issue; intentionally does nothing until then.
  void event;
  void props;
}
