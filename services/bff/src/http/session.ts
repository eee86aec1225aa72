import { createHash } from "node:crypto";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import type { AuthService, User } from "@transcribe/proto/auth/v1/auth";
import { setRequestUser } from "@transcribe/platform";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { apiKeyMayUse, bearerOf, isApiKey } from "./api-key-scope.js";
import { sendApiError } from "./api-error.js";

/** The signed-in user as routes see it (docs/requirements.md "Entities" User). */
export interface SessionUser {
  id: string;
  email: string;
  name: string | undefined;
  image: string | undefined;
  emailVerified: boolean;
  createdAt: Date;
  updatedAt: Date;
}

declare module "fastify" {
  interface FastifyRequest {
    /** Set on every authenticated /api/v1 route; absent on public ones. */
    user?: SessionUser;
    /** Set when the caller authenticated with an API key (Authorization: Bearer tsk_...), not a session. */
    apiKeyId?: string;
  }
  interface FastifyContextConfig {
    /** The route answers without a session (health, OpenAPI, blog, ...). */
    public?: boolean;
    /** Only a person's session may call it, never an API key, even under a key route's prefix (administration). */
    sessionOnly?: boolean;
  }
}

/** Paths whose routes need a session unless public: the API, the OpenAI-compatible API, and the BFF's own /auth routes (not the proxy's). */
const SESSION_PREFIXES = ["/api/v1/", "/v1/", "/auth/subscription/"];

/** Public without saying so on the route: the platform's and the blog's. */
const PUBLIC_ROUTES = ["/api/v1/health", "/api/v1/openapi.json"];
const PUBLIC_PREFIXES = ["/api/v1/blog/", "/api/v1/blog"];

export function isPublicRoute(routeUrl: string, config: { public?: boolean } | undefined): boolean {
  if (config?.public) return true;
  return PUBLIC_ROUTES.includes(routeUrl) || PUBLIC_PREFIXES.some((p) => routeUrl === p || routeUrl.startsWith(`${p}/`));
}

/**
 * The cookies better-auth reads (session token, cookie cache, don't-remember), with or
 * without the __Secure- prefix. Only they decide the session, so only they are sent to
 * the auth service and key the cache: analytics cookies changing on every page do not
 * defeat it, and a visitor without them never costs a call.
 */
export function sessionCookies(cookieHeader: string | undefined): string {
  if (!cookieHeader) return "";
  return cookieHeader
    .split(";")
    .map((part) => part.trim())
    .filter((part) => /^(__Secure-|__Host-)?better-auth\.[a-z_]+=/.test(part))
    .sort()
    .join("; ");
}

export interface SessionLookup {
  user: SessionUser | undefined;
  /** The API key the user was resolved from (bearer token), when it was one. */
  apiKeyId?: string;
  /** The API key is over its rate limit: seconds until it may try again (no user then). */
  retryAfterSeconds?: number;
  /** Set-Cookie values to pass to the browser (a refreshed or cleared session cookie). */
  setCookie: string[];
}

export interface SessionResolverOptions {
  /** How long one answer is reused for the same cookies; a revoked session lives at most this long here. */
  ttlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

/**
 * AuthService.GetSession behind a small in-memory cache keyed by a hash of the session
 * cookies (never the cookies themselves). A Set-Cookie is forwarded only with the answer
 * that produced it; cached answers carry none.
 */
export function createSessionResolver(client: Pick<Client<typeof AuthService>, "getSession">, options: SessionResolverOptions = {}) {
  const ttlMs = options.ttlMs ?? 5_000;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { user: SessionUser | undefined; expiresAt: number }>();
  const inFlight = new Map<string, Promise<{ user: SessionUser | undefined; setCookie: string[] }>>();

  return {
    async resolve(cookieHeader: string | undefined, authorization: string | undefined): Promise<SessionLookup> {
      const cookie = sessionCookies(cookieHeader);
      const bearerToken = bearerOf(authorization);
      if (!cookie && !bearerToken) return { user: undefined, setCookie: [] };

      // API keys are verified on every request, never cached: the auth service counts each
      // one against the key's rate limit and records its last use, and a revoked or expired
      // key stops at once (well inside the session cache's window).
      if (isApiKey(bearerToken)) {
        const answer = await client.getSession({ cookie: "", bearerToken });
        return {
          user: answer.user ? toSessionUser(answer.user) : undefined,
          setCookie: [],
          ...(answer.apiKeyId ? { apiKeyId: answer.apiKeyId } : {}),
          ...(answer.retryAfterSeconds ? { retryAfterSeconds: answer.retryAfterSeconds } : {}),
        };
      }
      const key = createHash("sha256").update(cookie).update("\0").update(bearerToken).digest("base64url");
      const hit = cache.get(key);
      if (hit && hit.expiresAt > now()) return { user: hit.user, setCookie: [] };

      // Under load the entry expires while hundreds of requests with the same cookie are in
      // flight: they wait for the one lookup already asked instead of each asking again.
      const asked = inFlight.get(key);
      if (asked) return { user: (await asked).user, setCookie: [] };
      const lookup = client.getSession({ cookie, bearerToken }).then((answer) => {
        const user = answer.user ? toSessionUser(answer.user) : undefined;
        if (cache.size >= maxEntries) {
          // Oldest first (Map keeps insertion order); expired ones go first anyway.
          for (const [k, v] of cache) if (v.expiresAt <= now() || cache.size >= maxEntries) cache.delete(k);
        }
        cache.delete(key);
        cache.set(key, { user, expiresAt: now() + ttlMs });
        return { user, setCookie: answer.setCookie };
      });
      inFlight.set(key, lookup);
      try {
        return await lookup;
      } finally {
        inFlight.delete(key);
      }
    },
    /** For tests and sign-out paths: forget every cached answer. */
    clear: () => {
      cache.clear();
      inFlight.clear();
    },
  };
}
export type SessionResolver = ReturnType<typeof createSessionResolver>;

function toSessionUser(user: User): SessionUser {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    image: user.image,
    emailVerified: user.emailVerified,
    createdAt: user.createdAt ? timestampDate(user.createdAt) : new Date(0),
    updatedAt: user.updatedAt ? timestampDate(user.updatedAt) : new Date(0),
  };
}

/**
 * Every /api/v1 route (and the BFF's own /auth/subscription routes) needs a session unless it is public: without one the answer is
 * 401 {error: {code: 'unauthenticated', message: 'Not signed in'}} before the handler
 * runs. Paths no route matches keep their 404. It runs before validation, so a caller
 * without a session learns nothing about a route's schema (401, not 400).
 */
export function requireSessionOnApi(app: FastifyInstance, resolver: SessionResolver): void {
  app.addHook("preValidation", async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url;
    if (!route || !SESSION_PREFIXES.some((prefix) => route.startsWith(prefix))) return;
    if (isPublicRoute(route, request.routeOptions.config)) return;
    const { user, setCookie, apiKeyId, retryAfterSeconds } = await resolver.resolve(request.headers.cookie, request.headers.authorization);
    if (setCookie.length > 0) reply.header("set-cookie", setCookie);
    if (retryAfterSeconds) {
      reply.header("retry-after", String(retryAfterSeconds));
      return sendApiError(reply, 429, "rate_limited", `Too many requests with this API key; try again in ${retryAfterSeconds} s`);
    }
    if (!user) {
      if (isApiKey(bearerOf(request.headers.authorization))) return sendApiError(reply, 401, "invalid_api_key", "Invalid, revoked or expired API key");
      return sendApiError(reply, 401, "unauthenticated", "Not signed in");
    }
    if (apiKeyId && !apiKeyMayUse(route, request.routeOptions.config)) {
      return sendApiError(reply, 403, "forbidden", "API keys cannot be used for this route; sign in to the web app instead");
    }
    request.user = user;
    // Calls to the services made for this request carry the user as a signed claim.
    setRequestUser(user.id);
    if (apiKeyId) request.apiKeyId = apiKeyId;
  });
}
