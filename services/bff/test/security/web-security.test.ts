import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { createLogger, loadConfig } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { sql } from "kysely";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "@transcribe/embedded/config";
import { type AuthHarness, Browser, startAuth } from "../../../auth/test/harness.js";
import { type MediaHarness, startMedia } from "../../../media/test/harness.js";
import { buildBff } from "../../src/app.js";
import { bffConfigSchema } from "../../src/config.js";
import { CROSS_SITE_MESSAGE } from "../../src/http/csrf.js";
import { SERVICE_UNREACHABLE } from "../../src/http/api-error.js";
import { NUL_MESSAGE } from "../../src/http/nul-guard.js";

const logger = createLogger("bff-web-security-test", "silent");
const closedPort = () => freePort().then((port) => `http://127.0.0.1:${port}`);

/** A BFF on a real port of its own; `prepare` may add routes before it listens. */
async function startBff(env: Record<string, string>, prepare?: (app: Awaited<ReturnType<typeof buildBff>>) => void) {
  const port = Number(env.PORT ?? (await freePort()));
  const app = await buildBff(loadConfig(bffConfigSchema, { WEB_DIST_DIR: "/nonexistent", ...env }), logger);
  prepare?.(app);
  await app.listen({ host: "127.0.0.1", port });
  return { app, url: `http://127.0.0.1:${port}` };
}

/** Every directive of a Content-Security-Policy header, by name. */
function directives(header: string | null): Record<string, string[]> {
  expect(header, "Content-Security-Policy").toBeTruthy();
  return Object.fromEntries(
    header!
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name!, values]),
  );
}

/** Builds the SPA as `npm run build` does, into its own directory, with `env` added. */
function buildWeb(outDir: string, env: Record<string, string>): void {
  const result = spawnSync(process.execPath, [path.join(repoRoot, "node_modules/vite/bin/vite.js"), "build", "--outDir", outDir, "--emptyOutDir"], {
    cwd: path.join(repoRoot, "web"),
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 240_000,
  });
  expect(result.status, `vite build\n${result.stdout}\n${result.stderr}`).toBe(0);
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe("security headers on every BFF response", () => {
  let auth: AuthHarness;
  beforeAll(async () => {
    auth = await startAuth();
  });
  afterAll(() => auth?.close());

  it("in development: a CSP without inline script, no framing, nosniff, a trimmed referrer, no HSTS", async () => {
    const bff = await startBff({ AUTH_URL: auth.server.url, MEDIA_URL: await closedPort() });
    try {
      // The SPA's 503 page (not built here), JSON answers, the 404 handler and a response proxied from the auth service.
      for (const url of ["/", "/api/v1/health", "/api/v1/me", "/api/v1/nope", "/auth/ok", "/auth/error?error=x"]) {
        const response = await fetch(`${bff.url}${url}`);
        await response.arrayBuffer();
        const csp = directives(response.headers.get("content-security-policy"));
        expect(csp["default-src"], url).toEqual(["'self'"]);
        expect(csp["script-src"], url).toEqual(["'self'"]);
        expect(csp["frame-ancestors"], url).toEqual(["'none'"]);
        expect(csp["object-src"], url).toEqual(["'none'"]);
        expect(csp["base-uri"], url).toEqual(["'self'"]);
        expect(csp["connect-src"], url).toEqual(["'self'"]);
        expect(csp["media-src"], url).toEqual(["'self'", "blob:"]);
        expect(csp).not.toHaveProperty("upgrade-insecure-requests");
        expect(response.headers.get("x-frame-options"), url).toBe("DENY");
        expect(response.headers.get("x-content-type-options"), url).toBe("nosniff");
        expect(response.headers.get("referrer-policy"), url).toBe("strict-origin-when-cross-origin");
        expect(response.headers.get("strict-transport-security"), url).toBeNull();
        expect(response.headers.get("x-powered-by"), url).toBeNull();
      }
    } finally {
      await bff.app.close();
    }
  });

  it("HSTS in production, and with an https public URL also upgrade-insecure-requests", async () => {
    const production = await startBff({ NODE_ENV: "production", AUTH_URL: auth.server.url });
    const https = await startBff({ PUBLIC_BASE_URL: "https://transcribe.example", AUTH_URL: auth.server.url });
    try {
      const a = await fetch(`${production.url}/api/v1/nope`);
      expect(a.headers.get("strict-transport-security")).toBe("max-age=31536000");
      expect(directives(a.headers.get("content-security-policy"))).not.toHaveProperty("upgrade-insecure-requests");
      const b = await fetch(`${https.url}/auth/ok`);
      expect(b.headers.get("strict-transport-security")).toBe("max-age=31536000");
      expect(directives(b.headers.get("content-security-policy"))).toHaveProperty("upgrade-insecure-requests");
    } finally {
      await production.app.close();
      await https.app.close();
    }
  });

  it("lets the web app reach the analytics, error-reporting and S3 hosts configured for it, and nothing else", async () => {
    const bff = await startBff({
      VITE_POSTHOG_KEY: "phc_public_project_key",
      VITE_POSTHOG_HOST: "https://eu.i.posthog.com",
      VITE_SENTRY_DSN: "https://public@o123.ingest.sentry.io/456",
      S3_PUBLIC_ENDPOINT: "https://s3.example.com:9000",
      CSP_CONNECT_ORIGINS: "https://*.cdn.example, not a url, javascript:alert(1)",
    });
    try {
      const csp = directives((await fetch(`${bff.url}/api/v1/nope`)).headers.get("content-security-policy"));
      const expected = ["'self'", "https://eu.i.posthog.com", "https://eu-assets.i.posthog.com", "https://o123.ingest.sentry.io", "https://s3.example.com:9000", "https://*.cdn.example"];
      expect(csp["connect-src"]).toEqual(expected);
      expect(csp["media-src"]).toEqual(["'self'", "blob:", ...expected.slice(1)]);
      expect(csp["script-src"]).toEqual(["'self'", "https://eu.i.posthog.com", "https://eu-assets.i.posthog.com"]);
    } finally {
      await bff.app.close();
    }
  });
});

describe("cross-site request forgery: the origin check on cookie-authenticated mutations", () => {
  let auth: AuthHarness;
  let bff: Awaited<ReturnType<typeof startBff>>;
  let origin = "";
  let user: Browser;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    auth = await startAuth({ AUTH_BASE_URL: origin });
    bff = await startBff({
      PORT: String(port),
      PUBLIC_BASE_URL: origin,
      AUTH_TRUSTED_ORIGINS: "http://localhost:5173",
      AUTH_URL: auth.server.url,
      MEDIA_URL: await closedPort(),
      BLOG_URL: await closedPort(),
      BILLING_URL: await closedPort(),
      SESSION_CACHE_TTL_MS: "0",
    });
    user = new Browser(origin);
    expect((await user.post("/auth/sign-up/email", { email: "csrf@example.com", password: "correct horse battery", name: "Before" })).status).toBe(200);
  });
  afterAll(async () => {
    await bff?.app.close();
    await auth?.close();
  });

  const send = (method: string, url: string, headers: Record<string, string>, body?: unknown, cookie = true) =>
    fetch(`${origin}${url}`, {
      method,
      headers: { ...(cookie ? { cookie: user.cookieHeader() } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const nameNow = async () => (await user.get("/auth/get-session")).body.user.name as string;

  const foreign: Array<[string, Record<string, string>]> = [
    ["another site's Origin", { origin: "https://evil.example" }],
    ["Origin: null (sandboxed frame, privacy redirect)", { origin: "null" }],
    ["a sibling origin on the same host (same-site)", { origin: "http://127.0.0.1:1", "sec-fetch-site": "same-site" }],
    ["our origin as a prefix of another host", { origin: `${origin}.evil.example` }],
    ["Sec-Fetch-Site: cross-site without Origin", { "sec-fetch-site": "cross-site" }],
    ["another site's Referer without Origin", { referer: "https://evil.example/page" }],
    ["an untrusted port of a trusted host", { origin: "http://localhost:5174" }],
  ];

  it("refuses them with 403 and the JSON error before anything changes, on /auth and /api/v1", async () => {
    for (const [what, headers] of foreign) {
      const update = await send("POST", "/auth/update-user", headers, { name: "Forged" });
      expect(update.status, what).toBe(403);
      expect(await update.json(), what).toEqual({ error: { code: "permission_denied", message: CROSS_SITE_MESSAGE } });
      for (const [method, url] of [
        ["POST", "/api/v1/billing/restore"],
        ["DELETE", "/api/v1/files/some-id"],
        ["PATCH", "/api/v1/transcriptions/some-id/rename"],
        ["PUT", "/api/v1/nope"],
      ] as const) {
        const answer = await send(method, url, headers, method === "PATCH" ? { new_name: "x" } : undefined);
        expect(answer.status, `${what}: ${method} ${url}`).toBe(403);
        expect(((await answer.json()) as { error: { message: string } }).error.message).toBe(CROSS_SITE_MESSAGE);
      }
    }
    expect(await nameNow()).toBe("Before");
  });

  it("lets the product's own pages through: same Origin, Referer, Sec-Fetch-Site same-origin, a trusted dev origin", async () => {
    const ours: Array<[string, Record<string, string>]> = [
      ["our Origin", { origin }],
      ["Sec-Fetch-Site: same-origin", { origin, "sec-fetch-site": "same-origin" }],
      ["our Referer without Origin", { referer: `${origin}/account` }],
      ["Sec-Fetch-Site: none (typed by the user)", { "sec-fetch-site": "none" }],
    ];
    for (const [what, headers] of ours) {
      const update = await send("POST", "/auth/update-user", { origin, ...headers }, { name: `Changed: ${what}` });
      expect(update.status, `${what}: ${await update.clone().text()}`).toBe(200);
      expect(await nameNow()).toBe(`Changed: ${what}`);
      // Past the guard, the route runs: billing is down here, so 503 rather than 403.
      expect((await send("POST", "/api/v1/billing/restore", headers)).status, what).toBe(503);
    }
    // The Vite dev server (AUTH_TRUSTED_ORIGINS) proxies to the BFF.
    expect((await send("POST", "/api/v1/billing/restore", { origin: "http://localhost:5173" })).status).toBe(503);
  });

  it("leaves alone what cannot be forged: safe methods, requests without a session cookie, non-browser clients, signed webhooks", async () => {
    const evil = { origin: "https://evil.example", "sec-fetch-site": "cross-site" };
    expect((await send("GET", "/api/v1/me", evil)).status).toBe(200);
    // No cookie, nothing to forge: the route answers as to anyone signed out.
    expect((await send("POST", "/api/v1/billing/restore", evil, undefined, false)).status).toBe(401);
    // Neither Origin, Referer nor Sec-Fetch-Site: not a browser (curl, scripts).
    expect((await send("POST", "/api/v1/billing/restore", {})).status).toBe(503);
    // Signed webhooks: their signature, not the cookie, authorizes them (the services are down here: 503).
    expect((await send("POST", "/api/v1/blog/webhook", evil, { body: "{}", signature: "00" })).status).toBe(503);
    const stripe = await fetch(`${origin}/api/v1/billing/webhook`, { method: "POST", headers: { ...evil, cookie: user.cookieHeader(), "content-type": "application/json", "stripe-signature": "t=1,v1=0" }, body: "{}" });
    expect(stripe.status).toBe(503);
    const routes = new Set(bff.app.routeTable.map((r) => `${r.method} ${r.url}`));
    for (const exempt of ["POST /api/v1/blog/webhook", "POST /api/v1/billing/webhook", "PUT /api/v1/storage/*", "GET /api/v1/storage/exports/*"]) {
      expect(routes.has(exempt), exempt).toBe(true);
    }
  });
});

describe("session cookie flags on the real sign-in responses through the BFF", () => {
  const flagsOf = (setCookie: string[], name: RegExp) => {
    const line = setCookie.find((c) => name.test(c.split("=")[0]!));
    expect(line, `Set-Cookie ${name} in ${setCookie.join(" | ")}`).toBeTruthy();
    return line!.split(";").map((part) => part.trim().toLowerCase());
  };

  it("HttpOnly, SameSite=Lax, Path=/ and Secure (the __Secure- prefix) outside development; sign-out clears it", async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const auth = await startAuth({ AUTH_BASE_URL: origin });
    const bff = await startBff({ PORT: String(port), AUTH_URL: auth.server.url, PUBLIC_BASE_URL: origin });
    try {
      const browser = new Browser(origin);
      const signUp = await browser.post("/auth/sign-up/email", { email: "cookies@example.com", password: "correct horse battery", name: "C" });
      const session = flagsOf(signUp.setCookie, /^__Secure-better-auth\.session_token$/);
      expect(session).toEqual(expect.arrayContaining(["httponly", "secure", "samesite=lax", "path=/"]));
      for (const line of signUp.setCookie) {
        expect(line.toLowerCase(), line).toContain("httponly");
        expect(line.toLowerCase(), line).toContain("secure");
        expect(line.toLowerCase(), line).toContain("samesite=lax");
      }

      // The magic link's landing (a GET that sets the session) has the same flags.
      await browser.post("/auth/sign-in/magic-link", { email: "cookies@example.com", callbackURL: "/dashboard" });
      const link = new URL((await auth.lastMail("cookies@example.com", "magic-link")).url);
      const landed = await new Browser(origin).get(link.pathname + link.search);
      expect(landed.status).toBe(302);
      expect(flagsOf(landed.setCookie, /^__Secure-better-auth\.session_token$/)).toEqual(expect.arrayContaining(["httponly", "secure", "samesite=lax"]));

      const signOut = await browser.post("/auth/sign-out");
      expect(flagsOf(signOut.setCookie, /^__Secure-better-auth\.session_token$/)).toContain("max-age=0");
    } finally {
      await bff.app.close();
      await auth.close();
    }
  });

  it("in development (plain http on a laptop): HttpOnly and SameSite=Lax, without Secure", async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const auth = await startAuth({ AUTH_BASE_URL: origin, NODE_ENV: "development" });
    const bff = await startBff({ PORT: String(port), AUTH_URL: auth.server.url, PUBLIC_BASE_URL: origin });
    try {
      const signUp = await new Browser(origin).post("/auth/sign-up/email", { email: "dev-cookies@example.com", password: "correct horse battery", name: "D" });
      const session = flagsOf(signUp.setCookie, /^better-auth\.session_token$/);
      expect(session).toEqual(expect.arrayContaining(["httponly", "samesite=lax", "path=/"]));
      expect(session).not.toContain("secure");
    } finally {
      await bff.app.close();
      await auth.close();
    }
  });
});

describe("error bodies in production: no stack, paths, SQL or internal addresses", () => {
  let auth: AuthHarness;
  let media: MediaHarness;
  let bff: Awaited<ReturnType<typeof startBff>>;
  let unreachable: Awaited<ReturnType<typeof startBff>>;
  let cookie: string;

  beforeAll(async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    [auth, media] = await Promise.all([startAuth({ AUTH_BASE_URL: origin }), startMedia()]);
    const env = { NODE_ENV: "production", PUBLIC_BASE_URL: origin, AUTH_URL: auth.server.url };
    bff = await startBff({ ...env, PORT: String(port), MEDIA_URL: media.url }, (app) => {
      // A test-only route: hidden from the OpenAPI document (every documented route needs operationId, summary, ...).
      app.get("/api/v1/security-test/throws", { config: { public: true }, schema: { hide: true } }, async () => {
        throw new Error('relation "secret_table" does not exist (SELECT * FROM secret_table) at /work/main/services/bff/src/x.ts:12:3');
      });
    });
    unreachable = await startBff({ ...env, MEDIA_URL: await closedPort() });
    const browser = new Browser(origin);
    expect((await browser.post("/auth/sign-up/email", { email: "prod-errors@example.com", password: "correct horse battery", name: "P" })).status).toBe(200);
    cookie = browser.cookieHeader();
  });
  afterAll(async () => {
    await bff?.app.close();
    await unreachable?.app.close();
    await media?.stop();
    await auth?.close();
  });

  const leaks = (text: string) => {
    for (const needle of ["secret_table", "SELECT", "/work/", "node_modules", ".ts:", "    at ", "stack", "ECONNREFUSED", "127.0.0.1", "relation"]) {
      expect(text, `the body shows ${needle}`).not.toContain(needle);
    }
  };

  it("a handler that throws: 500 {error: {code: 'internal', message: 'Internal error'}}", async () => {
    const response = await fetch(`${bff.url}/api/v1/security-test/throws`);
    const text = await response.text();
    expect(response.status).toBe(500);
    expect(JSON.parse(text)).toEqual({ error: { code: "internal", message: "Internal error" } });
    leaks(text);
  });

  it("a service whose database query fails: 500 with the same fixed body", async () => {
    await sql`alter table files rename to files_gone`.execute(media.db);
    try {
      const response = await fetch(`${bff.url}/api/v1/files`, { headers: { cookie } });
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(JSON.parse(text)).toEqual({ error: { code: "internal", message: "Internal error" } });
      leaks(text);
    } finally {
      await sql`alter table files_gone rename to files`.execute(media.db);
    }
  });

  it("a service that cannot be reached: 503 with a fixed message, not Node's (which names the address)", async () => {
    const response = await fetch(`${unreachable.url}/api/v1/files`, { headers: { cookie } });
    const text = await response.text();
    expect(response.status).toBe(503);
    expect(JSON.parse(text)).toEqual({ error: { code: "unavailable", message: SERVICE_UNREACHABLE } });
    leaks(text);
  });

  it("malformed JSON, a NUL character, an oversized body and an oversized URL: 4xx with the JSON error body", async () => {
    const bad = await fetch(`${bff.url}/api/v1/upload`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: '{"file_name": ' });
    expect(bad.status).toBe(400);
    leaks(await bad.clone().text());
    expect(((await bad.json()) as { error: { code: string } }).error.code).toEqual(expect.any(String));
    const large = await fetch(`${bff.url}/api/v1/upload`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ file_name: "x".repeat(1_100_000) }) });
    expect(large.status).toBe(413);
    expect(((await large.json()) as { error: { code: string } }).error.code).toEqual(expect.any(String));
    // PostgreSQL text cannot hold U+0000: refused at the edge instead of failing a query.
    const nul = await fetch(`${bff.url}/api/v1/support`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify({ subject: "a\u0000b", message: "m" }) });
    expect(nul.status).toBe(400);
    expect(await nul.json()).toEqual({ error: { code: "invalid_argument", message: NUL_MESSAGE } });
    expect((await fetch(`${bff.url}/api/v1/files/%00`, { headers: { cookie } })).status).toBe(400);
    const long = await fetch(`${bff.url}/api/v1/files?q=${"x".repeat(20_000)}`, { headers: { cookie } });
    expect(long.status).toBe(431);
    expect(await long.json()).toEqual({ error: { code: "headers_too_large", message: expect.any(String) } });
  });
});

describe("the SPA bundle and the browser", () => {
  let dist: string;
  const secrets: Record<string, string> = {
    AUTH_SECRET: "fake-auth-secret-4c2f0e1d9b8a7f6e5d4c3b2a1f0e9d8c",
    BETTER_AUTH_SECRET: "fake-better-auth-secret-0a1b2c3d4e5f6a7b8c9d",
    STRIPE_SECRET_KEY: "sk_live_51FakeFakeFakeFakeFakeFakeFake",
    STRIPE_WEBHOOK_SECRET: "whsec_FakeFakeFakeFakeFakeFakeFake",
    GROQ_API_KEY: "gsk_FakeFakeFakeFakeFakeFakeFakeFake",
    ELEVENLABS_API_KEY: "sk_fake_elevenlabs_0123456789abcdef",
    S3_ACCESS_KEY_ID: "AKIAFAKEFAKEFAKEFAKE",
    S3_SECRET_ACCESS_KEY: "fake/s3/secret/AbCdEfGhIjKlMnOpQrStUv",
    SMTP_URL: "smtp://mailer:fake-smtp-password-123@smtp.example.com:587",
    DATABASE_URL: "postgres://app:fake-db-password-456@db.example.com:5432/app",
    BLOG_WEBHOOK_SECRET: "fake-blog-webhook-secret-789",
    STORAGE_SIGNING_SECRET: "fake-storage-signing-secret-0123456789abcdef",
    GITHUB_CLIENT_SECRET: "fake-github-client-secret-abc",
    GOOGLE_CLIENT_SECRET: "fake-google-client-secret-def",
    AUTH_OIDC_CLIENT_SECRET: "fake-oidc-client-secret-ghi",
    STORAGE_NOTIFICATION_TOKEN: "fake-storage-notification-token-jkl",
    SENTRY_DSN: "https://fake-server-key@o999.ingest.sentry.io/999",
    POSTHOG_KEY: "phc_fake_server_side_key_mno",
  };
  // Public by design: the browser needs them (analytics key, error-reporting DSN).
  const publicValues = { VITE_POSTHOG_KEY: "phc_fake_public_browser_key_pqr" };

  beforeAll(async () => {
    dist = await mkdtemp(path.join(os.tmpdir(), "web-security-dist-"));
    buildWeb(dist, { ...secrets, ...publicValues });
  }, 300_000);
  afterAll(() => (dist ? rm(dist, { recursive: true, force: true }) : undefined));

  it("carries no server secret: none of the build environment's secret values, no key or credential patterns", async () => {
    const files = await filesUnder(dist);
    expect(files.some((f) => f.endsWith(".js"))).toBe(true);
    const contents = await Promise.all(files.map(async (file) => [path.relative(dist, file), await readFile(file, "latin1")] as const));
    const all = contents.map(([, text]) => text).join("\n");
    // The control: a VITE_ value does reach the bundle, so the scan reads what the build made.
    expect(all).toContain(publicValues.VITE_POSTHOG_KEY);
    for (const [file, text] of contents) {
      for (const [name, value] of Object.entries(secrets)) expect(text.includes(value), `${name} in ${file}`).toBe(false);
      for (const pattern of [/sk_(live|test)_[A-Za-z0-9]{10,}/, /rk_(live|test)_[A-Za-z0-9]{10,}/, /whsec_[A-Za-z0-9]{10,}/, /gsk_[A-Za-z0-9]{20,}/, /-----BEGIN [A-Z ]*PRIVATE KEY-----/, /AKIA[0-9A-Z]{16}/, /postgres(ql)?:\/\/[^:/\s"'`]+:[^@\s"'`]+@/, /smtps?:\/\/[^:/\s"'`]+:[^@\s"'`]+@/]) {
        expect(pattern.exec(text)?.[0], `${pattern} in ${file}`).toBeUndefined();
      }
    }
  });

  const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  const browserHere = existsSync(chromiumPath);
  if (!browserHere && process.env.CI) throw new Error(`Chromium not found at ${chromiumPath}`);

  it.skipIf(!browserHere)("runs in Chromium under the CSP without a violation, and a sibling origin's forged requests are refused", { timeout: 240_000 }, async () => {
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const auth = await startAuth({ AUTH_BASE_URL: origin, NODE_ENV: "development" });
    // What the BFF answered, as its own HTTP server saw it (the attacker's page cannot read the answers).
    const answered: Array<{ method: string; url: string; status: number; origin: string | undefined; cookie: boolean }> = [];
    // The BFF gets the build's VITE_ settings too, as the launcher's processes all do: the CSP then allows PostHog.
    const env = { PORT: String(port), WEB_DIST_DIR: dist, AUTH_URL: auth.server.url, PUBLIC_BASE_URL: origin, BILLING_URL: await closedPort(), SESSION_CACHE_TTL_MS: "0", ...publicValues };
    const bff = await startBff(env, (app) => {
      app.addHook("onResponse", async (request, reply) => {
        answered.push({ method: request.method, url: request.url, status: reply.statusCode, origin: request.headers.origin, cookie: Boolean(request.headers.cookie?.includes("better-auth.session_token=")) });
      });
    });
    // The attacker: a page on the same host, another port (same site, so SameSite=Lax cookies go along).
    const attackerPort = await freePort();
    const attackerPage = `<!doctype html><script>
      fetch("${origin}/api/v1/billing/restore", { method: "POST", mode: "no-cors", credentials: "include" });
      fetch("${origin}/auth/update-user", { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body: JSON.stringify({ name: "Forged" }) });
    </script>`;
    const attacker: Server = createServer((_request, response) => response.writeHead(200, { "content-type": "text/html" }).end(attackerPage));
    await new Promise<void>((resolve) => attacker.listen(attackerPort, "127.0.0.1", resolve));
    const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
    try {
      const page = await browser.newPage();
      // Every page the test opens reports its violations here, across navigations.
      const violations: Array<{ page: string; directive: string; blocked: string; source: string }> = [];
      await page.exposeFunction("reportCspViolation", (violation: (typeof violations)[number]) => violations.push(violation));
      // Scripts for the page are strings: this project's TypeScript has no DOM types.
      await page.addInitScript({
        content: `document.addEventListener("securitypolicyviolation", (e) => window.reportCspViolation({ page: location.href, directive: e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile }));`,
      });
      const rendered = () => page.waitForFunction(`(document.getElementById("root")?.childElementCount ?? 0) > 0`);
      const pageFetch = (url: string, init: Record<string, unknown>) =>
        page.evaluate(`fetch(${JSON.stringify(url)}, ${JSON.stringify(init)}).then(async (r) => ({ status: r.status, body: await r.text() }))`) as Promise<{ status: number; body: string }>;
      const consoleCsp: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text()) && !/'unsafe-eval'/.test(message.text())) consoleCsp.push(message.text());
      });

      await page.goto(`${origin}/`, { waitUntil: "networkidle" });
      await rendered();
      const json = { "content-type": "application/json" };
      const signedUp = await pageFetch("/auth/sign-up/email", { method: "POST", headers: json, body: JSON.stringify({ email: "browser-csp@example.com", password: "correct horse battery", name: "Browser" }) });
      expect(signedUp.status, signedUp.body).toBe(200);
      for (const route of ["/dashboard", "/account", "/blog", "/contact-us", "/no-such-page"]) {
        await page.goto(`${origin}${route}`, { waitUntil: "networkidle" });
        await rendered();
      }
      // The app's own mutation from its page (Origin and Sec-Fetch-Site as Chromium sends them) passes the guard.
      const own = await pageFetch("/auth/update-user", { method: "POST", headers: json, body: JSON.stringify({ name: "Renamed in the browser" }) });
      expect(own.status, own.body).toBe(200);

      const attackerOrigin = `http://127.0.0.1:${attackerPort}`;
      const fromAttacker = () => answered.filter((a) => a.origin === attackerOrigin);
      await page.goto(`${attackerOrigin}/`, { waitUntil: "networkidle" });
      await expect.poll(() => fromAttacker().length, { timeout: 10_000 }).toBe(2);
      // The session cookie went along (same site), and the guard refused both.
      expect(fromAttacker().map(({ method, url, status, cookie }) => ({ method, url, status, cookie })).sort((x, y) => x.url.localeCompare(y.url))).toEqual([
        { method: "POST", url: "/api/v1/billing/restore", status: 403, cookie: true },
        { method: "POST", url: "/auth/update-user", status: 403, cookie: true },
      ]);

      await page.goto(`${origin}/account`, { waitUntil: "networkidle" });
      const me = await pageFetch("/api/v1/me", {});
      expect(JSON.parse(me.body).name).toBe("Renamed in the browser");
      // zod probes whether eval is allowed (new Function) and falls back when it is not.
      expect(violations.filter((v) => v.blocked !== "eval")).toEqual([]);
      expect(consoleCsp).toEqual([]);
    } finally {
      await browser.close();
      await new Promise((resolve) => attacker.close(resolve));
      await bff.app.close();
      await auth.close();
    }
  });
});
