import type { BetterAuthPlugin } from "better-auth";
import {
  APIError,
  createAuthEndpoint,
  createAuthMiddleware,
  getSessionFromCtx,
  isAPIError,
  requestPasswordReset,
} from "better-auth/api";
import { generateRandomString } from "better-auth/crypto";
import { z } from "zod";
import { deleteAccountIdentifier, deletionPath, DELETE_TOKEN_ALPHABET, DELETE_TOKEN_LENGTH } from "./domain/delete-user.js";
import { deleteAccountMail } from "./domain/mails.js";
import type { AuthMailer } from "./mailer.js";

/**
 * Where better-auth 1.7 behaves differently from the spec (which describes the
 * behaviour and messages of the authentication layer as the product shipped it), these
 * hooks restore the spec's behaviour around the built-in endpoints instead of
 * replacing them. Each rule is listed in docs/decisions/0006-accounts-on-better-auth.md.
 */
export function specRules(options: { mailer: AuthMailer; deleteTokenExpiresIn: number }): BetterAuthPlugin {
  return {
    id: "transcribe-spec-rules",
    endpoints: {
      // docs/requirements.md "Calls" keeps POST /forget-password next to /request-password-reset; better-auth
      // 1.7 only has the latter. Same body, same answer.
      forgetPassword: createAuthEndpoint(
        "/forget-password",
        { method: "POST", body: z.object({ email: z.email(), redirectTo: z.string().optional() }) },
        async (ctx) => requestPasswordReset({ ...ctx, asResponse: false, returnHeaders: false, returnStatus: false }),
      ),
    },
    hooks: {
      before: [
        {
          // docs/requirements.md "Errors": revoking a session that is not the caller's is UNAUTHORIZED, and an
          // unknown token is 'Session not found'. better-auth 1.7 answers both with
          // {status: true} and does nothing.
          matcher: (ctx) => ctx.path === "/revoke-session",
          handler: createAuthMiddleware(async (ctx) => {
            const token = (ctx.body as { token?: unknown } | undefined)?.token;
            if (typeof token !== "string") return;
            const session = await getSessionFromCtx(ctx);
            if (!session) return; // the endpoint answers 401 itself
            const target = await ctx.context.internalAdapter.findSession(token);
            if (!target) throw APIError.from("BAD_REQUEST", { message: "Session not found", code: "SESSION_NOT_FOUND" });
            if (target.session.userId !== session.user.id) {
              throw APIError.from("UNAUTHORIZED", { message: "Unauthorized", code: "UNAUTHORIZED" });
            }
          }),
        },
        {
          // docs/requirements.md "Validation": a new address owned by another user is refused with 'Couldn't update
          // your email'. better-auth 1.7 answers {status: true} and sends nothing, to hide
          // which addresses are registered; the spec prefers a clear refusal (the caller
          // is signed in, and the endpoint is rate limited).
          matcher: (ctx) => ctx.path === "/change-email",
          handler: createAuthMiddleware(async (ctx) => {
            if (!ctx.context.options.user?.changeEmail?.enabled) return;
            const raw = (ctx.body as { newEmail?: unknown } | undefined)?.newEmail;
            if (typeof raw !== "string" || !z.email().safeParse(raw).success) return;
            const session = await getSessionFromCtx(ctx);
            if (!session) return;
            const newEmail = raw.toLowerCase();
            if (newEmail === session.user.email) return; // 'Email is the same', from the endpoint
            const owner = await ctx.context.internalAdapter.findUserByEmail(newEmail);
            if (owner && owner.user.id !== session.user.id) {
              throw APIError.from("BAD_REQUEST", { message: "Couldn't update your email", code: "COULDNT_UPDATE_EMAIL" });
            }
          }),
        },
        {
          // docs/requirements.md "States", "Roles": deletion is immediate with a password or a fresh session, and goes
          // through a mailed link otherwise. better-auth either always mails (when a
          // sender is configured) or refuses a stale session; the mailed path is taken
          // here and the rest left to the built-in endpoint, configured without a sender.
          matcher: (ctx) => ctx.path === "/delete-user",
          handler: createAuthMiddleware(async (ctx) => {
            if (!ctx.context.options.user?.deleteUser?.enabled) return;
            const body = (ctx.body ?? {}) as { password?: unknown; token?: unknown; callbackURL?: unknown };
            const session = await getSessionFromCtx(ctx, { disableCookieCache: true });
            if (!session) return;
            const path = deletionPath({
              hasPassword: typeof body.password === "string" && body.password.length > 0,
              hasToken: typeof body.token === "string" && body.token.length > 0,
              sessionCreatedAt: new Date(session.session.createdAt),
              freshAgeSeconds: ctx.context.sessionConfig.freshAge,
              now: new Date(),
            });
            if (path === "immediate") return;
            const token = generateRandomString(DELETE_TOKEN_LENGTH, ...DELETE_TOKEN_ALPHABET);
            await ctx.context.internalAdapter.createVerificationValue({
              value: session.user.id,
              identifier: deleteAccountIdentifier(token),
              expiresAt: new Date(Date.now() + options.deleteTokenExpiresIn * 1000),
            });
            const callbackURL = typeof body.callbackURL === "string" && body.callbackURL ? body.callbackURL : "/";
            const url = `${ctx.context.baseURL}/delete-user/callback?token=${token}&callbackURL=${encodeURIComponent(callbackURL)}`;
            await options.mailer.send(deleteAccountMail(session.user.email, url));
            return ctx.json({ success: true, message: "Verification email sent" });
          }),
        },
      ],
      after: [
        {
          // docs/requirements.md "Validation" and "Errors" word these messages differently from better-auth 1.7. Every path:
          // set-password is server-only and so has none to match on.
          matcher: () => true,
          handler: createAuthMiddleware(async (ctx) => {
            const returned = ctx.context.returned;
            if (!isAPIError(returned)) return;
            const message = typeof returned.body?.message === "string" ? returned.body.message : "";
            const rewritten = specMessage(message);
            if (rewritten !== message) {
              throw APIError.fromStatus(returned.status, { ...returned.body, message: rewritten });
            }
          }),
        },
      ],
    },
  };
}

/** better-auth 1.7 message → the spec's wording (identity for everything else). */
export function specMessage(message: string): string {
  if (message === "User already has a password set") return "user already has a password";
  const unsupported = /^Provider (.+) is not supported\.$/.exec(message);
  if (unsupported) return `Provider ${unsupported[1]} is not supported or not found`;
  return message;
}
