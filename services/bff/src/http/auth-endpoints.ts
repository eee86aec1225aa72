import type { FastifySchema, HTTPMethods } from "fastify";
import { z } from "zod";
import { security } from "./openapi.js";

/**
 * The better-auth endpoints (behind the /auth proxy) that integrators call, described for
 * the OpenAPI document: sign-in by e-mail link or password, the session, sign-out and the
 * session list. The proxy forwards them byte for byte like every other /auth path; these
 * schemas only document (the auth service validates). The contract test compares each one
 * with better-auth's own endpoint definitions, so an upgrade that changes them fails there.
 * better-auth's field names are camelCase and its errors are {message, code}.
 */

const authErrorSchema = z
  .object({ message: z.string().describe("A sentence a person can read"), code: z.string().optional().describe("better-auth's error code, e.g. INVALID_EMAIL_OR_PASSWORD") })
  .meta({ id: "AuthError", description: "better-auth's error body" });

const retryLater = authErrorSchema.describe("Too many attempts from this address; retry after the seconds in `Retry-After`");

const authUserSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    name: z.string(),
    image: z.string().nullable().optional(),
    emailVerified: z.boolean(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: "AuthUser", description: "The account as better-auth returns it" });

const authSessionSchema = z
  .object({
    id: z.string(),
    token: z.string().describe("The session token (the value inside the session cookie)"),
    userId: z.string(),
    expiresAt: z.iso.datetime(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    ipAddress: z.string().nullable().optional(),
    userAgent: z.string().nullable().optional(),
  })
  .meta({ id: "AuthSession", description: "A signed-in session" });

const statusSchema = (description: string) => z.object({ status: z.boolean() }).meta({ description });

const setsSessionCookie = { "Set-Cookie": { description: "The session cookie", schema: { type: "string" } } };
const redirect = (description: string, headers: Record<string, unknown> = {}) =>
  z.null().meta({ description, headers: { Location: { description: "Where the browser goes next", schema: { type: "string" } }, ...headers } });

export interface DocumentedAuthEndpoint {
  method: HTTPMethods;
  /** The path under /auth, as better-auth names it. */
  path: string;
  schema: FastifySchema;
}

const tags = ["auth"];

export const documentedAuthEndpoints: DocumentedAuthEndpoint[] = [
  {
    method: "POST",
    path: "/sign-in/magic-link",
    schema: {
      operationId: "signInMagicLink",
      summary: "Mail a sign-in link (signs up on first use)",
      description: "The link (`GET /auth/magic-link/verify?token=…`) works once, for 5 minutes, and sets the session cookie.",
      tags,
      security: security.none,
      body: z
        .object({
          email: z.email(),
          name: z.string().optional().describe("The name of a new account"),
          callbackURL: z.string().optional().describe("Where the link lands after signing in"),
          newUserCallbackURL: z.string().optional().describe("Where a new account lands instead"),
          errorCallbackURL: z.string().optional().describe("Where a used or expired link lands"),
          metadata: z.record(z.string(), z.unknown()).optional(),
        })
        .meta({ id: "SignInMagicLink", description: "The address to mail the link to" }),
      response: { 200: statusSchema("The mail is on its way"), 400: authErrorSchema, 429: retryLater },
    },
  },
  {
    method: "GET",
    path: "/magic-link/verify",
    schema: {
      operationId: "verifyMagicLink",
      summary: "Open a sign-in link: sets the session cookie and redirects",
      tags,
      security: security.none,
      querystring: z.object({
        token: z.string().describe("From the mailed link"),
        callbackURL: z.string().optional(),
        errorCallbackURL: z.string().optional(),
        newUserCallbackURL: z.string().optional(),
      }),
      response: {
        302: redirect("Signed in: the session cookie is set and the browser goes to callbackURL (with ?error=INVALID_TOKEN when the link was used or expired)", setsSessionCookie),
        429: retryLater,
      },
    },
  },
  {
    method: "POST",
    path: "/sign-in/email",
    schema: {
      operationId: "signInEmail",
      summary: "Sign in with e-mail and password",
      tags,
      security: security.none,
      body: z
        .object({ email: z.email(), password: z.string(), callbackURL: z.string().optional(), rememberMe: z.boolean().optional() })
        .meta({ id: "SignInEmail", description: "The account's e-mail address and password" }),
      response: {
        200: z
          .object({ redirect: z.boolean(), token: z.string(), url: z.string().nullable().optional(), user: authUserSchema })
          .meta({ description: "Signed in; the session cookie is set", headers: setsSessionCookie }),
        400: authErrorSchema,
        401: authErrorSchema.describe("Invalid email or password"),
        403: authErrorSchema.describe("Email not verified (when verification is required)"),
        429: retryLater,
      },
    },
  },
  {
    method: "GET",
    path: "/get-session",
    schema: {
      operationId: "getSession",
      summary: "The current session and its user, or null",
      tags,
      // Answers everyone: null without a session.
      security: [...security.session, {}],
      querystring: z.object({
        disableCookieCache: z.boolean().optional().describe("Read the session from the database, not the cookie cache"),
        disableRefresh: z.boolean().optional().describe("Do not extend the session"),
      }),
      response: {
        200: z
          .object({ session: authSessionSchema, user: authUserSchema })
          .nullable()
          .meta({ description: "The session and its user; null when not signed in" }),
      },
    },
  },
  {
    method: "POST",
    path: "/sign-out",
    schema: {
      operationId: "signOut",
      summary: "End the current session",
      tags,
      security: security.session,
      response: { 200: z.object({ success: z.boolean() }).meta({ description: "Signed out; the session cookie is cleared" }), 400: authErrorSchema },
    },
  },
  {
    method: "GET",
    path: "/list-sessions",
    schema: {
      operationId: "listSessions",
      summary: "The caller's active sessions",
      tags,
      security: security.session,
      response: { 200: z.array(authSessionSchema).meta({ description: "Every active session of the caller" }), 401: authErrorSchema },
    },
  },
  {
    method: "POST",
    path: "/revoke-session",
    schema: {
      operationId: "revokeSession",
      summary: "End one of the caller's sessions",
      tags,
      security: security.session,
      body: z.object({ token: z.string().describe("A token from listSessions") }).meta({ id: "RevokeSession", description: "The session to end" }),
      response: {
        200: statusSchema("The session ended"),
        400: authErrorSchema.describe("Session not found"),
        401: authErrorSchema.describe("Not signed in, or the session is someone else's"),
      },
    },
  },
];
