// The app's two API clients. Both go through the same client code (error kinds, timeout);
// they differ in base path and case conversion: the product API (snake_case wire) and the
// authentication service that the BFF forwards under /auth (better-auth, camelCase wire).
import { createApiClient } from "./client";

export type ApiAuthErrorHandler = (status: 401 | 403, code: string | undefined) => void;

let authErrorHandler: ApiAuthErrorHandler | undefined;

/**
 * Sets what happens when the product API answers 401 or 403. The handler needs the app's
 * query client, which does not exist when this module loads, so it is plugged in later
 * (see app/router.ts). One handler, replaced rather than added to, so creating a second
 * app (tests do) does not leave the first one listening.
 */
export function setApiAuthErrorHandler(handler: ApiAuthErrorHandler | undefined): void {
  authErrorHandler = handler;
}

export const api = createApiClient({
  baseUrl: "/api/v1",
  onAuthError: (status, code) => authErrorHandler?.(status, code),
});

// No auth error handler here: a 401 from /auth (wrong password, expired token) is the
// answer to what the user just did, not a sign that the session was lost behind our back.
// better-auth speaks camelCase JSON (`callbackURL`, `currentPassword`): no case conversion,
// in either direction, for every /auth call.
export const authApi = createApiClient({ baseUrl: "/auth", convertCase: false });
