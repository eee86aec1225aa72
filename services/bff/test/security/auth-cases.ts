import { expect } from "vitest";
import { expectAuthError, type MatrixContext } from "./matrix.js";

/**
 * The auth service's endpoints behind the BFF's /auth/* (better-auth), keyed by their path
 * as better-auth declares it. session: acts on the signed-in user, 401 without a session
 * (`anonymous` when better-auth answers otherwise); public: anyone (sign-in, sign-up, links
 * from mails carrying their own token).
 */
export interface AuthCase {
  access: "session" | "public";
  /** The request, with B's ids wherever the endpoint takes an id. */
  request?: (ctx: MatrixContext) => { method: "GET" | "POST"; path: string; body?: unknown };
  /** Status without a session, when not 401. */
  anonymous?: number;
  /** A (or the throwaway user C) with B's ids; asserts the refusal. */
  attack?: (ctx: MatrixContext) => Promise<void>;
}

const PASSWORD = "correct horse battery staple";

/** An endpoint that takes B's id: A's request is refused with `status` (and the spec's message). */
function withBsId(request: NonNullable<AuthCase["request"]>, status: number, message?: string, anonymous?: number): AuthCase {
  return {
    access: "session",
    request,
    ...(anonymous === undefined ? {} : { anonymous }),
    attack: async (ctx) => {
      const sent = request(ctx);
      expectAuthError(await ctx.send(ctx.a.browser, sent), status, `A: ${sent.method} ${sent.path}`, message);
    },
  };
}

async function bStillSignedIn(ctx: MatrixContext) {
  const session = await ctx.bSecond.get("/auth/get-session");
  expect(session.body?.user?.id, "B's second session survives").toBe(ctx.b.id);
}

export const authCases: Record<string, AuthCase> = {
  "/ok": { access: "public" },
  "/error": { access: "public" },
  "/sign-up/email": {
    access: "public",
    attack: async (ctx) => {
      // Signing up again with B's address does not reach B's account (spec: 'User already exists').
      const answer = await ctx.send(ctx.a.browser, { method: "POST", path: "/auth/sign-up/email", body: { email: ctx.b.email, password: "another password 123", name: "Mallory" } });
      expect(answer.status, answer.text).toBe(422);
    },
  },
  "/sign-in/email": { access: "public" },
  "/sign-in/magic-link": { access: "public" },
  "/sign-in/social": { access: "public" },
  "/magic-link/verify": {
    access: "public",
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "GET", path: "/auth/magic-link/verify?token=forged-token&callbackURL=/dashboard" });
      expect(answer.status, answer.text).toBe(302);
      expect(answer.headers.get("location")).toContain("error=");
    },
  },
  "/callback/:id": {
    access: "public",
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "GET", path: `/auth/callback/github?code=stolen&state=${ctx.b.id}` });
      expect(answer.status, answer.text).toBe(302);
      expect(answer.headers.get("location")).toContain("error");
    },
  },
  "/verify-email": {
    access: "public",
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "GET", path: `/auth/verify-email?token=${encodeURIComponent(`forged.${ctx.b.id}.token`)}` });
      expect(answer.status, answer.text).toBeGreaterThanOrEqual(300);
      expect(answer.status, answer.text).toBeLessThan(500);
    },
  },
  "/send-verification-email": {
    access: "public",
    attack: async (ctx) => {
      // A signed in cannot aim B's verification (or anyone's) from A's session; better-auth refuses the mismatch.
      const answer = await ctx.send(ctx.a.browser, { method: "POST", path: "/auth/send-verification-email", body: { email: ctx.b.email } });
      expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
      expect(answer.status, answer.text).toBeLessThan(500);
    },
  },
  "/request-password-reset": { access: "public" },
  "/forget-password": { access: "public" },
  "/reset-password": {
    access: "public",
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "POST", path: "/auth/reset-password", body: { token: `forged-${ctx.b.id}`, newPassword: "taken over 12345" } });
      expectAuthError(answer, 400, "reset with a forged token");
    },
  },
  "/reset-password/:token": {
    access: "public",
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "GET", path: `/auth/reset-password/forged-${ctx.b.id}?callbackURL=/reset` });
      expect(answer.status, answer.text).toBe(302);
      expect(answer.headers.get("location")).toContain("error=INVALID_TOKEN");
    },
  },
  "/get-session": {
    access: "public",
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "GET", path: `/auth/get-session?userId=${ctx.b.id}` });
      expect(answer.body.user.id).toBe(ctx.a.id);
    },
  },
  "/list-sessions": {
    access: "session",
    request: () => ({ method: "GET", path: "/auth/list-sessions" }),
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "GET", path: `/auth/list-sessions?userId=${ctx.b.id}` });
      expect(answer.status).toBe(200);
      expect(JSON.stringify(answer.body)).not.toContain(ctx.ids.bSessionToken);
      expect((answer.body as Array<{ userId: string }>).every((s) => s.userId === ctx.a.id)).toBe(true);
    },
  },
  // docs/requirements.md "Errors": revoking another user's session is UNAUTHORIZED (auth's specRules).
  "/revoke-session": {
    ...withBsId((ctx) => ({ method: "POST", path: "/auth/revoke-session", body: { token: ctx.ids.bSessionToken } }), 401, "Unauthorized"),
    attack: async (ctx) => {
      await withBsId((c) => ({ method: "POST", path: "/auth/revoke-session", body: { token: c.ids.bSessionToken } }), 401, "Unauthorized").attack!(ctx);
      await bStillSignedIn(ctx);
    },
  },
  "/revoke-other-sessions": {
    access: "session",
    request: () => ({ method: "POST", path: "/auth/revoke-other-sessions", body: {} }),
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "POST", path: "/auth/revoke-other-sessions", body: { userId: ctx.b.id } });
      expect(answer.status, answer.text).toBe(200);
      await bStillSignedIn(ctx);
    },
  },
  "/update-user": {
    access: "session",
    request: (ctx) => ({ method: "POST", path: "/auth/update-user", body: { name: "Hijacked", userId: ctx.b.id } }),
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "POST", path: "/auth/update-user", body: { name: "Hijacked", userId: ctx.b.id, id: ctx.b.id } });
      expect(answer.status, answer.text).toBeLessThan(500);
      const me = await ctx.send(ctx.b.browser, { method: "GET", path: "/api/v1/me" });
      expect(me.body.name).not.toBe("Hijacked");
    },
  },
  "/update-session": {
    access: "session",
    request: (ctx) => ({ method: "POST", path: "/auth/update-session", body: { userId: ctx.b.id, token: ctx.ids.bSessionToken } }),
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "POST", path: "/auth/update-session", body: { userId: ctx.b.id, token: ctx.ids.bSessionToken } });
      expectAuthError(answer, 400, "update-session with B's ids");
      await bStillSignedIn(ctx);
    },
  },
  "/change-email": {
    access: "session",
    request: (ctx) => ({ method: "POST", path: "/auth/change-email", body: { newEmail: `taken-${ctx.b.email}` } }),
    // docs/requirements.md "Validation": an address another user owns is 'Couldn't update your email'.
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "POST", path: "/auth/change-email", body: { newEmail: ctx.b.email } });
      expectAuthError(answer, 400, "change-email to B's address", "Couldn't update your email");
    },
  },
  "/change-password": {
    access: "session",
    request: () => ({ method: "POST", path: "/auth/change-password", body: { currentPassword: PASSWORD, newPassword: "taken over 12345" } }),
    // A has no password: nothing to change, and B's password is never consulted.
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "POST", path: "/auth/change-password", body: { currentPassword: PASSWORD, newPassword: "taken over 12345", userId: ctx.b.id } });
      expectAuthError(answer, 400, "change-password from A's session");
    },
  },
  "/verify-password": {
    access: "session",
    request: () => ({ method: "POST", path: "/auth/verify-password", body: { password: PASSWORD } }),
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "POST", path: "/auth/verify-password", body: { password: PASSWORD, userId: ctx.b.id } });
      expect(answer.status, `B's password does not verify for A: ${answer.text}`).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    },
  },
  "/list-accounts": {
    access: "session",
    request: () => ({ method: "GET", path: "/auth/list-accounts" }),
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.a.browser, { method: "GET", path: `/auth/list-accounts?userId=${ctx.b.id}` });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual([]);
    },
  },
  "/link-social": {
    access: "session",
    request: () => ({ method: "POST", path: "/auth/link-social", body: { provider: "github", callbackURL: "/account" } }),
  },
  // Account ids: the session's user always wins over a userId in the request (docs/requirements.md "Roles").
  "/unlink-account": withBsId((ctx) => ({ method: "POST", path: "/auth/unlink-account", body: { providerId: "credential", accountId: ctx.ids.bAccountId } }), 400, "Account not found"),
  "/get-access-token": withBsId(
    (ctx) => ({ method: "POST", path: "/auth/get-access-token", body: { accountId: ctx.ids.bAccountId, userId: ctx.b.id } }),
    400,
    "Account not found",
  ),
  "/refresh-token": withBsId(
    (ctx) => ({ method: "POST", path: "/auth/refresh-token", body: { accountId: ctx.ids.bAccountId, userId: ctx.b.id } }),
    400,
    "Account not found",
  ),
  "/account-info": withBsId((ctx) => ({ method: "GET", path: `/auth/account-info?accountId=${ctx.ids.bAccountId}&userId=${ctx.b.id}` }), 400, "Account not found"),
  // A deletion token is bound to the user who asked for it; better-auth answers a missing session with NOT_FOUND.
  "/delete-user/callback": withBsId((ctx) => ({ method: "GET", path: `/auth/delete-user/callback?token=forged-${ctx.b.id}` }), 404, undefined, 404),
  // The last three end the throwaway user C's sessions, then C itself; B's view is compared afterwards.
  "/revoke-sessions": {
    access: "session",
    request: () => ({ method: "POST", path: "/auth/revoke-sessions", body: {} }),
    attack: async (ctx) => {
      const answer = await ctx.send(ctx.c.browser, { method: "POST", path: "/auth/revoke-sessions", body: { userId: ctx.b.id } });
      expect(answer.status, answer.text).toBe(200);
      await bStillSignedIn(ctx);
    },
  },
  "/sign-out": {
    access: "public",
    attack: async (ctx) => {
      const c = await ctx.signInAgain(ctx.c);
      const answer = await ctx.send(c, { method: "POST", path: "/auth/sign-out", body: { userId: ctx.b.id, token: ctx.ids.bSessionToken } });
      expect(answer.status, answer.text).toBe(200);
      await bStillSignedIn(ctx);
    },
  },
  "/delete-user": {
    access: "session",
    request: () => ({ method: "POST", path: "/auth/delete-user", body: {} }),
    attack: async (ctx) => {
      // C's session is fresh, so C is deleted at once; the ids of B in the body change nothing.
      const c = await ctx.signInAgain(ctx.c);
      const answer = await ctx.send(c, { method: "POST", path: "/auth/delete-user", body: { userId: ctx.b.id, id: ctx.b.id, password: PASSWORD } });
      expect(answer.status, answer.text).toBe(200);
      expect((await ctx.send(c, { method: "GET", path: "/auth/get-session" })).body).toBeNull();
      await bStillSignedIn(ctx);
    },
  },
  // @better-auth/api-key's HTTP endpoints are switched off (disabledPaths): keys are managed
  // through /api/v1/api-keys and resolved by AuthService only, so these answer 404 to everyone
  // (verify and delete-all-expired are server-only: they have no path).
  ...Object.fromEntries(
    (
      [
        ["/api-key/create", "POST"],
        ["/api-key/get", "GET"],
        ["/api-key/update", "POST"],
        ["/api-key/delete", "POST"],
        ["/api-key/list", "GET"],
      ] as const
    ).map(([path, method]): [string, AuthCase] => [
      path,
      {
        access: "session",
        anonymous: 404,
        request: () => ({ method, path: `/auth${path}`, ...(method === "POST" ? { body: { keyId: "x", key: "tsk_x", name: "n" } } : {}) }),
        attack: async (ctx) => {
          const answer = await ctx.send(ctx.a.browser, { method, path: `/auth${path}`, ...(method === "POST" ? { body: { keyId: "x", key: "tsk_x", name: "n" } } : {}) });
          expect(answer.status, `${method} /auth${path}`).toBe(404);
        },
      },
    ]),
  ),
};
