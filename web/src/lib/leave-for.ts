// Leaving the app for another site (Stripe's hosted pages). One place, so tests can see
// where the app would have gone: jsdom cannot navigate.
export function leaveFor(url: string): void {
  window.location.assign(url);
}
