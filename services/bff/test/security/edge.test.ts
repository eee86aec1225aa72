import http from "node:http";
import http2 from "node:http2";
import { createLogger, loadConfig } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, type Browser, signInWithMagicLink, startAuth } from "../../../auth/test/harness.js";
import { buildBff } from "../../src/app.js";
import { bffConfigSchema } from "../../src/config.js";
import { CROSS_SITE_MESSAGE } from "../../src/http/csrf.js";

const logger = createLogger("bff-edge-test", process.env.TEST_LOG_LEVEL ?? "silent");
const EVIL = "http://evil.localhost:3000";

/**
 * Every service but auth is this: an HTTP/2 server that records each RPC it is asked
 * (`/package.Service/Method`) and answers 503. A request that reached one of the BFF's
 * handlers shows here; one the edge refused does not.
 */
async function startRecorder() {
  const calls: Array<{ rpc: string; headers: http2.IncomingHttpHeaders }> = [];
  const server = http2.createServer((request, response) => {
    calls.push({ rpc: String(request.headers[":path"]), headers: request.headers });
    request.resume();
    response.writeHead(503, { "content-type": "text/plain" });
    response.end("recorder");
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const session of sessions) session.destroy();
    });
  return { url: `http://127.0.0.1:${address.port}`, calls, close };
}

/** A plain HTTP/1.1 server recording the requests (the auth proxy's upstream for the address test). */
async function startHttpRecorder() {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((request, response) => {
    seen.push(request.headers);
    request.resume();
    response.writeHead(200, { "content-type": "application/json" });
    response.end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url: `http://127.0.0.1:${address.port}`, seen, close };
}

/** One request sent byte for byte as given: no URL parser normalises the path on the way. */
function raw(base: string, method: string, path: string, headers: Record<string, string>, body?: string | Buffer) {
  const url = new URL(base);
  return new Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, method, path, headers: { ...headers, ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (c: Buffer) => chunks.push(c));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let parsed: any = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          // not JSON
        }
        resolve({ status: response.statusCode ?? 0, body: parsed, headers: response.headers });
      });
    });
    request.on("error", reject);
    request.end(body);
  });
}

function multipart(fields: Record<string, string>, file: { name: string; type: string; bytes: Buffer }) {
  const boundary = "----edge-test-boundary";
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`), file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

describe("the public edge", () => {
  let auth: AuthHarness;
  let recorder: Awaited<ReturnType<typeof startRecorder>>;
  const apps: Array<Awaited<ReturnType<typeof buildBff>>> = [];
  let origin: string;
  let alice: Browser;
  let admin: Browser;

  async function startBff(env: Record<string, string> = {}): Promise<string> {
    const port = await freePort();
    const app = await buildBff(
      loadConfig(bffConfigSchema, {
        WEB_DIST_DIR: "/nonexistent",
        AUTH_URL: auth.server.url,
        MEDIA_URL: recorder.url,
        TRANSCRIPTION_URL: recorder.url,
        EXPORT_URL: recorder.url,
        BILLING_URL: recorder.url,
        BLOG_URL: recorder.url,
        NOTIFIER_URL: recorder.url,
        WEBHOOKS_URL: recorder.url,
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        ADMIN_EMAILS: "edge-admin@example.com",
        ...env,
      }),
      logger,
    );
    await app.listen({ host: "127.0.0.1", port });
    apps.push(app);
    return `http://127.0.0.1:${port}`;
  }

  beforeAll(async () => {
    [auth, recorder] = await Promise.all([startAuth(), startRecorder()]);
    origin = await startBff();
    alice = await signInWithMagicLink(auth, "edge-alice@example.com");
    admin = await signInWithMagicLink(auth, "edge-admin@example.com");
  }, 120_000);

  afterAll(async () => {
    for (const app of apps) await app.close();
    await recorder?.close();
    await auth?.close();
  });

  const crossSite = (browser: Browser, extra: Record<string, string> = {}) => ({ cookie: browser.cookieHeader(), origin: EVIL, ...extra });

  it("refuses a cross-site restore whose path is percent-encoded (/%61pi/...) like the plain one", async () => {
    const before = recorder.calls.length;
    const plain = await raw(origin, "POST", "/api/v1/transcriptions/00000000-0000-4000-8000-000000000001/revisions/1/restore", crossSite(alice));
    expect(plain.status).toBe(403);
    const encoded = await raw(origin, "POST", "/%61pi/v1/transcriptions/00000000-0000-4000-8000-000000000001/revisions/1/restore", crossSite(alice));
    expect(encoded.status).toBe(403);
    expect(encoded.body).toEqual({ error: { code: "permission_denied", message: CROSS_SITE_MESSAGE } });
    expect(recorder.calls.length).toBe(before);
  });

  it("refuses a cross-site POST /v1/audio/transcriptions with the session cookie (nothing reaches media)", async () => {
    const before = recorder.calls.length;
    const form = multipart({ model: "whisper-1" }, { name: "a.wav", type: "audio/wav", bytes: Buffer.alloc(2048, 1) });
    const answer = await raw(origin, "POST", "/v1/audio/transcriptions", crossSite(alice, { "content-type": form.contentType }), form.body);
    expect(answer.status).toBe(403);
    expect(answer.body.error.message).toBe(CROSS_SITE_MESSAGE);
    const translated = await raw(origin, "POST", "/v1/audio/translations", crossSite(alice, { "content-type": form.contentType, "sec-fetch-site": "cross-site" }), form.body);
    expect(translated.status).toBe(403);
    expect(recorder.calls.length).toBe(before);
  });

  it("refuses an administrator's API key on the model administration routes (a session is needed)", async () => {
    const created = await raw(origin, "POST", "/api/v1/api-keys", { cookie: admin.cookieHeader(), "content-type": "application/json" }, JSON.stringify({ name: "admin-script" }));
    expect(created.status).toBe(201);
    const key = created.body.key as string;
    const before = recorder.calls.length;
    for (const [method, path] of [
      ["POST", "/api/v1/models/whisper-large-v3/download"],
      ["DELETE", "/api/v1/models/whisper-large-v3"],
    ] as const) {
      const answer = await raw(origin, method, path, { authorization: `Bearer ${key}` });
      expect(answer.status, `${method} ${path}`).toBe(403);
      expect(answer.body.error.code).toBe("forbidden");
    }
    expect(recorder.calls.length).toBe(before);
    // The key still reads the catalog (GET /api/v1/models is a key route).
    const read = await raw(origin, "GET", "/api/v1/models", { authorization: `Bearer ${key}` });
    expect(read.status).not.toBe(403);
  });

  describe("client addresses behind the ingress (TRUSTED_PROXIES)", () => {
    const contact = (base: string, forwardedFor?: string) =>
      raw(base, "POST", "/api/v1/contact", { "content-type": "application/json", ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) }, JSON.stringify({ name: "N", email: "n@example.com", message: "hello" }));

    it("counts the contact form per client when the peer is a trusted proxy, and the proxy forwards that address to auth", async () => {
      const authSeen = await startHttpRecorder();
      try {
        const behindIngress = await startBff({ TRUSTED_PROXIES: "127.0.0.0/8", CONTACT_RATE_LIMIT_PER_HOUR: "2", AUTH_URL: authSeen.url });
        for (let i = 0; i < 2; i++) expect((await contact(behindIngress, "203.0.113.1")).status).not.toBe(429);
        expect((await contact(behindIngress, "203.0.113.1")).status).toBe(429);
        // Another person behind the same ingress is not locked out.
        expect((await contact(behindIngress, "198.51.100.7, 203.0.113.2")).status).not.toBe(429);
        expect((await contact(behindIngress, "203.0.113.2")).status).not.toBe(429);
        // The auth service rate-limits sign-ins by the address it is given: the client's, not the ingress's.
        await raw(behindIngress, "GET", "/auth/ok", { "x-forwarded-for": "198.51.100.7, 203.0.113.9" });
        expect(authSeen.seen.at(-1)?.["x-forwarded-for"]).toBe("203.0.113.9");
      } finally {
        await authSeen.close();
      }
    });

    it("ignores a spoofed X-Forwarded-For from a peer that is not a trusted proxy", async () => {
      const authSeen = await startHttpRecorder();
      try {
        const edge = await startBff({ TRUSTED_PROXIES: "10.0.0.0/8", CONTACT_RATE_LIMIT_PER_HOUR: "2", AUTH_URL: authSeen.url });
        expect((await contact(edge, "203.0.113.1")).status).not.toBe(429);
        expect((await contact(edge, "203.0.113.2")).status).not.toBe(429);
        expect((await contact(edge, "203.0.113.3")).status).toBe(429);
        await raw(edge, "GET", "/auth/ok", { "x-forwarded-for": "203.0.113.9" });
        expect(authSeen.seen.at(-1)?.["x-forwarded-for"]).toBe("127.0.0.1");
      } finally {
        await authSeen.close();
      }
    });
  });

  it("bounds the uploads a replica receives at once: per user 429, in total 503, both with Retry-After; a finished upload frees its slot", async () => {
    const bounded = await startBff({ API_MAX_CONCURRENT_UPLOADS: "2", API_MAX_CONCURRENT_UPLOADS_PER_USER: "1" });
    const [bob, carol] = await Promise.all([signInWithMagicLink(auth, "edge-bob@example.com"), signInWithMagicLink(auth, "edge-carol@example.com")]);
    const form = multipart({}, { name: "a.wav", type: "audio/wav", bytes: Buffer.alloc(4096, 1) });
    const headersOf = (browser: Browser) => ({ cookie: browser.cookieHeader(), "content-type": form.contentType });
    /** An upload that sends its first bytes and then waits (a slow client with a large file). */
    const slowUpload = (browser: Browser) => {
      const url = new URL(bounded);
      const request = http.request({ host: url.hostname, port: url.port, method: "POST", path: "/api/v1/jobs", headers: { ...headersOf(browser), "content-length": String(50 * 1024 * 1024) } });
      request.on("error", () => undefined);
      request.write(form.body.subarray(0, 300));
      return request;
    };
    const gateMessage = /too many uploads/i;
    const first = slowUpload(alice);
    const second = slowUpload(bob);
    await new Promise((r) => setTimeout(r, 500));
    try {
      const again = await raw(bounded, "POST", "/api/v1/jobs", headersOf(alice), form.body);
      expect(again.status).toBe(429);
      expect(again.headers["retry-after"]).toMatch(/^\d+$/);
      expect(again.body.error.message).toMatch(gateMessage);
      const full = await raw(bounded, "POST", "/api/v1/jobs", headersOf(carol), form.body);
      expect(full.status).toBe(503);
      expect(full.headers["retry-after"]).toMatch(/^\d+$/);
      expect(full.body.error.message).toMatch(gateMessage);
      const openAi = await raw(bounded, "POST", "/v1/audio/transcriptions", headersOf(carol), multipart({ model: "whisper-1" }, { name: "a.wav", type: "audio/wav", bytes: Buffer.alloc(1024, 1) }).body);
      expect(openAi.status).toBe(503);
    } finally {
      first.destroy();
      second.destroy();
    }
    await new Promise((r) => setTimeout(r, 500));
    // The slots came back: carol's upload is taken (it then meets the stand-in media service).
    const later = await raw(bounded, "POST", "/api/v1/jobs", headersOf(carol), form.body);
    expect(later.body.error?.message ?? "").not.toMatch(gateMessage);
  });

  it("never lets a mangled path or a method override carry a cross-site request to a state-changing handler (property)", async () => {
    const doc = (await (await fetch(`${origin}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const unsafe = ["post", "put", "patch", "delete"];
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).filter((m) => unsafe.includes(m)).map((method) => ({ path, method: method.toUpperCase() })));
    // The routes a signature, not the cookie, authorizes (docs/security.md).
    const exempt = new Set(["/api/v1/billing/webhook", "/api/v1/blog/webhook"]);
    const targets = routes.filter((r) => !exempt.has(r.path));
    expect(targets.length).toBeGreaterThan(20);

    const encodeChar = (c: string, upper: boolean) => {
      const hex = Buffer.from(c, "utf8").toString("hex").match(/../g)!.map((h) => `%${upper ? h.toUpperCase() : h}`);
      return hex.join("");
    };
    type Step = { kind: "encode"; at: number; upper: boolean } | { kind: "case"; at: number } | { kind: "slash"; at: number } | { kind: "semicolon"; at: number; text: string } | { kind: "dot"; at: number } | { kind: "dotdot"; at: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant("encode" as const), at: fc.nat(), upper: fc.boolean() }),
      fc.record({ kind: fc.constant("case" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("slash" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("semicolon" as const), at: fc.nat(), text: fc.constantFrom(";", ";a=b", ";jsessionid=1") }),
      fc.record({ kind: fc.constant("dot" as const), at: fc.nat() }),
      fc.record({ kind: fc.constant("dotdot" as const), at: fc.nat() }),
    );
    const mangle = (path: string, steps: Step[]) => {
      const segments = path.split("/").slice(1);
      for (const s of steps) {
        const i = s.at % segments.length;
        const seg = segments[i]!;
        if (s.kind === "encode") {
          const chars = [...seg];
          const j = chars.length ? (s.at >> 3) % chars.length : 0;
          // Not inside an escape already made (that would be a malformed URL, refused by the router).
          if (chars[j] && !seg.includes("%")) chars[j] = encodeChar(chars[j]!, s.upper);
          segments[i] = chars.join("");
        } else if (s.kind === "case") segments[i] = seg.replace(/[a-z]/, (c) => c.toUpperCase());
        else if (s.kind === "slash") segments.splice(i, 0, "");
        else if (s.kind === "semicolon") segments[i] = seg + s.text;
        else if (s.kind === "dot") segments.splice(i, 0, ".");
        else segments.splice(i, 0, "x", "..");
      }
      return `/${segments.join("/")}`;
    };
    const overrideHeaders = ["x-http-method-override", "x-method-override", "x-http-method"];
    const request = fc.record({
      route: fc.constantFrom(...targets),
      steps: fc.array(step, { minLength: 0, maxLength: 4 }),
      method: fc.oneof(fc.constant("route"), fc.constantFrom("HEAD", "OPTIONS")),
      override: fc.option(fc.record({ header: fc.constantFrom(...overrideHeaders), value: fc.constantFrom("GET", "HEAD", "OPTIONS", "POST", "DELETE", "PUT", "PATCH") }), { nil: undefined }),
      how: fc.constantFrom<Record<string, string>>({ origin: EVIL }, { "sec-fetch-site": "cross-site", origin: EVIL }, { "sec-fetch-site": "same-site", origin: EVIL }, { referer: `${EVIL}/page` }, { origin: "null" }),
    });

    await fc.assert(
      fc.asyncProperty(request, async ({ route, steps, method, override, how }) => {
        const path = mangle(route.path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000001"), steps);
        const verb = method === "route" ? route.method : method;
        const headers: Record<string, string> = { cookie: alice.cookieHeader(), "content-type": "application/json", ...how };
        if (override) headers[override.header] = override.value;
        const before = recorder.calls.length;
        const answer = await raw(origin, verb, path, headers, verb === "HEAD" || verb === "OPTIONS" ? undefined : "{}");
        const calls = recorder.calls.slice(before).map((c) => c.rpc);
        const label = `${verb} ${path} ${JSON.stringify(headers)} → ${answer.status} ${JSON.stringify(answer.body)} rpc ${calls.join(",")}`;
        if (verb === "HEAD" || verb === "OPTIONS") {
          // A safe method may reach a read (GET's handler answers HEAD), never a write.
          expect(calls.every((rpc) => /\/(Get|List|Search)[A-Za-z]*$/.test(rpc)), label).toBe(true);
          return;
        }
        expect(calls, label).toEqual([]);
        const refused = answer.status === 403 && answer.body?.error?.message === CROSS_SITE_MESSAGE;
        // No route matched, or the router refused the URL itself: no handler ran either way.
        const noRoute = answer.status === 404 || answer.status === 405 || (answer.status === 400 && answer.body?.error?.code === "bad_url");
        expect(refused || noRoute, label).toBe(true);
      }),
      {
        numRuns: Number(process.env.EDGE_RUNS ?? 400),
        seed: process.env.EDGE_SEED ? Number(process.env.EDGE_SEED) : undefined,
        // Found by a run: the guard refused it, but in the /api error shape, which the
        // OpenAI route's response schema turned into a 500.
        examples: [[{ route: { path: "/v1/audio/translations", method: "POST" }, steps: [{ kind: "encode", at: 0, upper: false }], method: "route", override: undefined, how: { origin: EVIL } }]],
      },
    );
  }, 300_000);
});
