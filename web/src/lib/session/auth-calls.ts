// Every /auth call the screens make, one function each, against better-auth 1.7 as our
// auth service configures it (docs/api.md "Authentication", decision 0006). `authApi`
// sends and reads camelCase JSON as better-auth expects; errors are ApiError with the
// server's message (e.g. 'Email is the same'), which the screens show as they are.
import { z } from "zod";
import { authApi } from "../api";
import { zAuthUser, zListSessionsResponse, zRevokeSessionResponse, zSignInMagicLinkResponse } from "../api/generated/zod.gen";

// The endpoints the API's OpenAPI document describes (sign-in, session, sessions) are read with
// its generated schemas; the others answer with better-auth's own shapes, which the document
// leaves out (it lists what integrators call, decision 0025), so their small schemas are here.
const statusSchema = z.object({ status: z.boolean() }).loose();

/** Social providers better-auth may have configured (decision 0006: GitHub, Google). */
export const SOCIAL_PROVIDERS = { github: "GitHub", google: "Google" } as const;
export type SocialProvider = keyof typeof SOCIAL_PROVIDERS;

export function providerLabel(providerId: string): string {
  if (providerId === "credential") return "E-mail and password";
  return SOCIAL_PROVIDERS[providerId as SocialProvider] ?? providerId;
}

export function sendMagicLink(input: { email: string; callbackURL: string; errorCallbackURL?: string }) {
  return authApi.request({ method: "POST", path: "/sign-in/magic-link", body: input, schema: zSignInMagicLinkResponse });
}

export function updateUser(input: { name?: string; image?: string | null }) {
  return authApi.request({ method: "POST", path: "/update-user", body: input, schema: statusSchema });
}

export function changeEmail(input: { newEmail: string; callbackURL?: string }) {
  return authApi.request({ method: "POST", path: "/change-email", body: input, schema: statusSchema });
}

export function changePassword(input: { currentPassword: string; newPassword: string; revokeOtherSessions?: boolean }) {
  return authApi.request({
    method: "POST",
    path: "/change-password",
    body: input,
    schema: z.object({ token: z.string().nullish(), user: zAuthUser.loose() }).loose(),
  });
}

// list-accounts also carries userId; the screens do not need it.
const accountListSchema = z.array(
  z.object({ id: z.string(), providerId: z.string(), accountId: z.string(), createdAt: z.string().min(1), updatedAt: z.string().min(1), scopes: z.array(z.string()) }).loose(),
);

export function listAccounts(signal?: AbortSignal) {
  return authApi.request({ path: "/list-accounts", schema: accountListSchema, signal });
}

export function linkSocial(input: { provider: string; callbackURL: string; errorCallbackURL?: string }) {
  return authApi.request({
    method: "POST",
    path: "/link-social",
    body: input,
    schema: z.object({ url: z.string().optional(), redirect: z.boolean().optional() }).loose(),
  });
}

/** `accountId` is the account row's id from list-accounts (better-auth 1.7, decision 0006). */
export function unlinkAccount(input: { accountId: string }) {
  return authApi.request({ method: "POST", path: "/unlink-account", body: input, schema: statusSchema });
}

export function listSessions(signal?: AbortSignal) {
  return authApi.request({ path: "/list-sessions", schema: zListSessionsResponse, signal });
}

export function revokeSession(input: { token: string }) {
  return authApi.request({ method: "POST", path: "/revoke-session", body: input, schema: zRevokeSessionResponse });
}

export function revokeOtherSessions() {
  return authApi.request({ method: "POST", path: "/revoke-other-sessions", body: {}, schema: statusSchema });
}

export function deleteUser(input: { password?: string; callbackURL?: string }) {
  return authApi.request({
    method: "POST",
    path: "/delete-user",
    body: input,
    schema: z.object({ success: z.boolean(), message: z.string() }).loose(),
  });
}
