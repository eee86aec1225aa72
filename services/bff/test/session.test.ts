import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { createLogger, loadConfig, type ServiceServer, startServiceServer } from "@transcribe/platform";
import { AuthService, GetSessionResponseSchema, UserSchema } from "@transcribe/proto/auth/v1/auth";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, signInWithMagicLink, startAuth } from "../../auth/test/harness.js";
import { buildBff } from "../src/app.js";
import { bffConfigSchema } from "../src/config.js";
import { createSessionResolver, isPublicRoute, sessionCookies } from "../src/http/session.js";

const logger = createLogger("bff-session-test", "silent");
const bffWith = (env: Record<string, string>) => buildBff(loadConfig(bffConfigSchema, { WEB_DIST_DIR: "/nonexistent", ...env }), logger);

describe("the BFF with the real auth service", () => {
  let auth: AuthHarness;
  let bff: Awaited<ReturnType<typeof bffWith>>;
  beforeAll(async () => {
    auth = await startAuth();
    bff = await bffWith({ AUTH_URL: auth.server.url, SESSION_CACHE_TTL_MS: "0" });
  });
  afterAll(async () => {
    await bff?.close();
    await auth?.close();
  });

  it("GET /api/v1/me without a session is 401 {error: {code: 'unauthenticated', message: 'Not signed in'}}", async () => {
    const response = await bff.inject({ method: "GET", url: "/api/v1/me" });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: { code: "unauthenticated", message: "Not signed in" } });
    const garbage = await bff.inject({ method: "GET", url: "/api/v1/me", headers: { cookie: "better-auth.session_token=nope" } });
    expect(garbage.statusCode).toBe(401);
  });

  it("a mutation without a session is 401 before its body is validated (no schema leaks)", async () => {
    for (const [url, payload] of [
      ["/api/v1/upload", { nonsense: true }],
      ["/api/v1/transcriptions/x/export", { format: "exe" }],
    ] as const) {
      const response = await bff.inject({ method: "POST", url, payload });
      expect(response.statusCode, url).toBe(401);
      expect(response.json().error.code).toBe("unauthenticated");
    }
  });

  it("GET /api/v1/me with the session cookie is the user, snake_case", async () => {
    const browser = await signInWithMagicLink(auth, "bff-1@example.com");
    const response = await bff.inject({ method: "GET", url: "/api/v1/me", headers: { cookie: `ph_x=1; ${browser.cookieHeader()}` } });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ email: "bff-1@example.com", name: null, image: null, email_verified: true, is_admin: false });
    expect(Object.keys(body).sort()).toEqual(["created_at", "email", "email_verified", "id", "image", "is_admin", "name", "updated_at"]);
  });

  it("a signed-out session is 401 again (cache off here)", async () => {
    const browser = await signInWithMagicLink(auth, "bff-2@example.com");
    const cookie = browser.cookieHeader();
    expect((await bff.inject({ method: "GET", url: "/api/v1/me", headers: { cookie } })).statusCode).toBe(200);
    await browser.post("/auth/sign-out");
    expect((await bff.inject({ method: "GET", url: "/api/v1/me", headers: { cookie } })).statusCode).toBe(401);
  });

  it("health, the OpenAPI document and unknown paths need no session", async () => {
    expect((await bff.inject({ method: "GET", url: "/api/v1/openapi.json" })).statusCode).toBe(200);
    expect((await bff.inject({ method: "GET", url: "/api/v1/health" })).statusCode).not.toBe(401);
    expect((await bff.inject({ method: "GET", url: "/api/v1/nope" })).statusCode).toBe(404);
  });

  it("the OpenAPI document describes /api/v1/me with the User schema and its 401", async () => {
    const doc = (await bff.inject({ method: "GET", url: "/api/v1/openapi.json" })).json();
    const me = doc.paths["/api/v1/me"].get;
    expect(Object.keys(me.responses).sort()).toEqual(["200", "401", "503"]);
    expect(doc.components.schemas.User.properties).toHaveProperty("email_verified");
  });

  it("/auth/* reaches better-auth through the BFF: magic link, its mail, the landing sets the cookie", async () => {
    const sent = await bff.inject({
      method: "POST",
      url: "/auth/sign-in/magic-link",
      headers: { "content-type": "application/json", origin: auth.baseUrl },
      payload: { email: "bff-3@example.com", callbackURL: "/dashboard" },
    });
    expect(sent.statusCode).toBe(200);
    const mail = await auth.lastMail("bff-3@example.com", "magic-link");
    const link = new URL(mail.url);
    const landed = await bff.inject({ method: "GET", url: link.pathname + link.search });
    expect(landed.statusCode).toBe(302);
    const cookies = ([] as string[]).concat(landed.headers["set-cookie"] ?? []);
    expect(cookies.some((c) => c.includes("session_token="))).toBe(true);
  });

  it("the client address reaches the auth service as X-Forwarded-For (rate limits key on it), never the client's own header", async () => {
    const seen: Array<string | undefined> = [];
    const upstream = Fastify();
    upstream.all("/auth/*", async (request) => {
      seen.push(request.headers["x-forwarded-for"] as string | undefined);
      return {};
    });
    const url = await upstream.listen({ host: "127.0.0.1", port: 0 });
    const app = await bffWith({ AUTH_URL: url });
    try {
      await app.inject({ method: "GET", url: "/auth/ok", headers: { "x-forwarded-for": "6.6.6.6" }, remoteAddress: "203.0.113.7" });
      expect(seen).toEqual(["203.0.113.7"]);
    } finally {
      await app.close();
      await upstream.close();
    }
  });
});

describe("the session cache", () => {
  let calls = 0;
  let server: ServiceServer;
  let signedIn = true;
  let setCookie: string[] = [];
  beforeAll(async () => {
    // A stand-in AuthService, as bff.test.ts stands in the other services, to count calls.
    server = await startServiceServer({
      name: "auth",
      host: "127.0.0.1",
      port: 0,
      logger,
      routes: (router) =>
        router.service(AuthService, {
          getSession(request) {
            calls += 1;
            if (!signedIn || !request.cookie) return create(GetSessionResponseSchema, {});
            return create(GetSessionResponseSchema, {
              user: create(UserSchema, {
                id: "u1",
                email: "u1@example.com",
                emailVerified: true,
                createdAt: timestampFromDate(new Date(0)),
                updatedAt: timestampFromDate(new Date(0)),
              }),
              setCookie,
            });
          },
          getUser() {
            throw new Error("not used");
          },
        }),
    });
  });
  afterAll(() => server?.close());

  it("reuses an answer for the same session cookie for the TTL, then asks again", async () => {
    let now = 1_000;
    const { createServiceClient } = await import("@transcribe/platform");
    const resolver = createSessionResolver(createServiceClient(AuthService, server.url), { ttlMs: 5_000, now: () => now });
    calls = 0;
    const first = await resolver.resolve("better-auth.session_token=abc; ph=1", undefined);
    expect(first.user?.id).toBe("u1");
    await resolver.resolve("ph=2; better-auth.session_token=abc", undefined); // other cookies do not matter
    expect(calls).toBe(1);
    signedIn = false;
    now += 4_999;
    expect((await resolver.resolve("better-auth.session_token=abc", undefined)).user?.id).toBe("u1");
    now += 2;
    expect((await resolver.resolve("better-auth.session_token=abc", undefined)).user).toBeUndefined();
    expect(calls).toBe(2);
    signedIn = true;
  });

  it("asks once for many requests with the same cookies in flight at once; only that answer's Set-Cookie is forwarded", async () => {
    let now = 1_000;
    const { createServiceClient } = await import("@transcribe/platform");
    const resolver = createSessionResolver(createServiceClient(AuthService, server.url), { ttlMs: 5_000, now: () => now });
    calls = 0;
    setCookie = ["better-auth.session_token=new; Path=/; HttpOnly"];
    const answers = await Promise.all(Array.from({ length: 30 }, () => resolver.resolve("better-auth.session_token=many", undefined)));
    expect(calls).toBe(1);
    expect(answers.every((a) => a.user?.id === "u1")).toBe(true);
    expect(answers.filter((a) => a.setCookie.length > 0)).toHaveLength(1);
    // Other cookies are another lookup, and once the entry expires the next burst asks again.
    await Promise.all([resolver.resolve("better-auth.session_token=other", undefined), resolver.resolve("better-auth.session_token=other", undefined)]);
    expect(calls).toBe(2);
    now += 5_001;
    signedIn = false;
    const later = await Promise.all(Array.from({ length: 10 }, () => resolver.resolve("better-auth.session_token=many", undefined)));
    expect(calls).toBe(3);
    expect(later.every((a) => a.user === undefined)).toBe(true);
    signedIn = true;
    setCookie = [];
  });

  it("never calls the auth service without a session cookie or bearer token", async () => {
    const { createServiceClient } = await import("@transcribe/platform");
    const resolver = createSessionResolver(createServiceClient(AuthService, server.url));
    calls = 0;
    expect((await resolver.resolve("ph=1; theme=dark", undefined)).user).toBeUndefined();
    expect((await resolver.resolve(undefined, undefined)).user).toBeUndefined();
    expect(calls).toBe(0);
  });

  it("forwards a refreshed session's Set-Cookie to the browser", async () => {
    setCookie = ["better-auth.session_token=new; Path=/; HttpOnly; SameSite=Lax"];
    const app = await bffWith({ AUTH_URL: server.url });
    try {
      const response = await app.inject({ method: "GET", url: "/api/v1/me", headers: { cookie: "better-auth.session_token=refresh-me" } });
      expect(response.statusCode).toBe(200);
      expect(response.headers["set-cookie"]).toEqual(setCookie);
    } finally {
      setCookie = [];
      await app.close();
    }
  });

  it("the auth service down is 503, not 401", async () => {
    const app = await bffWith({ AUTH_URL: "http://127.0.0.1:1" });
    try {
      const response = await app.inject({ method: "GET", url: "/api/v1/me", headers: { cookie: "better-auth.session_token=x" } });
      expect(response.statusCode).toBe(503);
      expect(response.json().error.code).toBe("unavailable");
    } finally {
      await app.close();
    }
  });
});

describe("session helpers", () => {
  it("sessionCookies keeps only better-auth's cookies, sorted", () => {
    expect(sessionCookies("a=1; better-auth.session_token=t; __Secure-better-auth.session_data=d; b=2")).toBe(
      "__Secure-better-auth.session_data=d; better-auth.session_token=t",
    );
    expect(sessionCookies(undefined)).toBe("");
  });

  it("public routes: health, openapi.json, blog, and routes marked public", () => {
    expect(isPublicRoute("/api/v1/health", {})).toBe(true);
    expect(isPublicRoute("/api/v1/openapi.json", {})).toBe(true);
    expect(isPublicRoute("/api/v1/blog/posts/:slug", {})).toBe(true);
    expect(isPublicRoute("/api/v1/blog/webhook", {})).toBe(true);
    expect(isPublicRoute("/api/v1/me", {})).toBe(false);
    expect(isPublicRoute("/api/v1/blogger", {})).toBe(false);
    expect(isPublicRoute("/api/v1/x", { public: true })).toBe(true);
  });
});
