// Where a signed-out visitor was headed, kept across the sign-in round trip (docs/requirements.md "States": saved
// in local storage under an auth redirect key). The value comes back from storage and from
// a URL anyone can craft, so it is only ever followed when it is a path on this site:
// anything else would make sign-in an open redirect.

export const AUTH_REDIRECT_STORAGE_KEY = "auth-redirect";

/** Where a freshly signed-in user goes when nothing was saved. */
export const DEFAULT_SIGNED_IN_PATH = "/dashboard";

// Any origin works as the base: only whether the result stays on it matters.
const PROBE_ORIGIN = "https://same-origin.invalid";

/**
 * The value when it is a same-origin path ("/dashboard?x=1#t"), else undefined.
 * Refused: protocol-relative "//host", "/\host" (browsers read "\" as "/"), absolute and
 * "javascript:" URLs, and control characters, which URL parsing silently strips and which
 * could turn "/\t/host" into "//host".
 */
export function safeRedirectPath(value: unknown): string | undefined {
  if (typeof value !== "string" || !value.startsWith("/")) return undefined;
  if (value.startsWith("//") || value.includes("\\")) return undefined;
  if (/[\u0000-\u001f\u007f]/.test(value)) return undefined;
  try {
    return new URL(value, PROBE_ORIGIN).origin === PROBE_ORIGIN ? value : undefined;
  } catch {
    return undefined;
  }
}

// Storage can throw (disabled cookies, Safari private mode, quota); losing the destination
// only costs a detour through the dashboard, so failures are ignored.
function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export function saveAuthRedirect(url: string): void {
  const path = safeRedirectPath(url);
  if (!path) return;
  try {
    storage()?.setItem(AUTH_REDIRECT_STORAGE_KEY, path);
  } catch {
    // see storage()
  }
}

/** Reads and forgets the saved destination; undefined when none was saved or it is unsafe. */
export function consumeAuthRedirect(): string | undefined {
  const store = storage();
  let value: string | null = null;
  try {
    value = store?.getItem(AUTH_REDIRECT_STORAGE_KEY) ?? null;
    store?.removeItem(AUTH_REDIRECT_STORAGE_KEY);
  } catch {
    // see storage()
  }
  return safeRedirectPath(value);
}

/** Where to send a user right after sign-in: the page they were headed to, else the dashboard. */
export function postSignInDestination(): string {
  return consumeAuthRedirect() ?? DEFAULT_SIGNED_IN_PATH;
}

/** The saved destination without forgetting it; undefined when none was saved or it is unsafe. */
export function peekAuthRedirect(): string | undefined {
  try {
    return safeRedirectPath(storage()?.getItem(AUTH_REDIRECT_STORAGE_KEY) ?? null);
  } catch {
    return undefined;
  }
}

/**
 * Where the magic link should land (its `callbackURL`): the `?redirect` the gate put on the
 * home page's URL, else the copy it saved (the visitor may have wandered off the URL that
 * carried it), else the dashboard. Always a same-origin path; the link may be opened in
 * another browser, so the destination has to travel in the link, not only in storage.
 */
export function signInCallbackPath(redirectParam: unknown): string {
  return safeRedirectPath(redirectParam) ?? peekAuthRedirect() ?? DEFAULT_SIGNED_IN_PATH;
}
