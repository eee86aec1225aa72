import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  addressPolicy,
  createDatabase,
  createLogger,
  loadConfig,
  migrateToLatest,
  outboxMigrations,
  startServiceServer,
  type Database,
  type HostResolver,
  type ServiceServer,
} from "@transcribe/platform";
import { createTestDatabase } from "@transcribe/platform/testing";
import { AuthService, GetSessionResponseSchema, UserSchema } from "@transcribe/proto/auth/v1/auth";
import { NotifierService } from "@transcribe/proto/notifier/v1/notifier";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blogConfigSchema } from "@transcribe/blog/config";
import { migrations as blogMigrations } from "@transcribe/blog/db/migrations";
import type { BlogDatabase } from "@transcribe/blog/db/schema";
import { buildBlogService } from "@transcribe/blog/service";
import { signWebhookBody } from "@transcribe/blog/webhook";
import { buildBff } from "../src/app.js";
import { bffConfigSchema } from "../src/config.js";
import { fetchImage } from "../src/http/image-fetch.js";
import { localClock, templateGreeting, timeOfDayOf } from "../src/routes/greeting.js";

const logger = createLogger("bff-public-site-test", "silent");
const SECRET = "bff-test-webhook-secret-0123";
const COOKIE = "better-auth.session_token=signed-in";
// 1x1 transparent PNG.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64");

/** Answers like DNS would: the test's names, nothing else. */
const names: Record<string, string> = { "images.example.com": "127.0.0.2", "evil.example.com": "127.0.0.1", "mixed.example.com": "8.8.8.8" };
const resolver: HostResolver = async (host) => {
  if (host === "mixed.example.com") return [{ address: "8.8.8.8", family: 4 }, { address: "10.0.0.5", family: 4 }];
  const address = names[host];
  if (!address) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return [{ address, family: 4 }];
};

describe("the public site and signed-in extras through the BFF", () => {
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: Database<BlogDatabase>;
  let blog: ServiceServer;
  let auth: ServiceServer;
  let notifier: ServiceServer;
  let transcriptions: ServiceServer;
  const tickets: unknown[] = [];
  let images: http.Server;
  let imagePort: number;
  let bff: Awaited<ReturnType<typeof buildBff>>;

  beforeAll(async () => {
    testDb = await createTestDatabase("bff_blog");
    database = createDatabase<BlogDatabase>(testDb.url, { max: 2 });
    await migrateToLatest(database.db, { ...outboxMigrations, ...blogMigrations });
    const built = buildBlogService({ config: blogConfigSchema.parse({ BLOG_WEBHOOK_SECRET: SECRET }), logger, database });
    blog = await startServiceServer({ name: "blog", host: "127.0.0.1", port: 0, logger, routes: built.parts.routes! });
    auth = await startServiceServer({
      name: "auth",
      host: "127.0.0.1",
      port: 0,
      logger,
      routes: (router) =>
        router.service(AuthService, {
          getSession(request) {
            if (request.cookie !== COOKIE) return create(GetSessionResponseSchema, {});
            return create(GetSessionResponseSchema, { user: create(UserSchema, { id: "u1", email: "ada@example.com", name: "Ada Lovelace" }) });
          },
          getUser() {
            return {};
          },
        }),
    });

    notifier = await startServiceServer({
      name: "notifier",
      host: "127.0.0.1",
      port: 0,
      logger,
      routes: (router) =>
        router.service(NotifierService, {
          sendSupportMessage(request) {
            tickets.push({ kind: "support", userId: request.userId, email: request.email, subject: request.subject, transcriptionId: request.transcriptionId });
            return { ticketId: `t${tickets.length}` };
          },
          sendContactMessage(request) {
            tickets.push({ kind: "contact", name: request.name, email: request.email });
            return { ticketId: `t${tickets.length}` };
          },
        }),
    });

    // Only what the support route asks of it: whether the transcript named in a ticket is the sender's.
    transcriptions = await startServiceServer({
      name: "transcription",
      host: "127.0.0.1",
      port: 0,
      logger,
      routes: (router) =>
        router.service(TranscriptionService, {
          getTranscription(request) {
            if (request.userId !== "u1" || request.id !== "t-1") throw new ConnectError("Transcription not found", Code.NotFound);
            return {};
          },
        }),
    });

    // The "internet": an image on 127.0.0.2 (allowed by the test's policy), redirects, a non-image.
    images = http.createServer((req, res) => {
      if (req.headers.cookie) return res.writeHead(400).end("cookies were forwarded");
      if (req.url === "/avatar.png") return res.writeHead(200, { "content-type": "image/png" }).end(PNG);
      if (req.url === "/to-loopback") return res.writeHead(302, { location: `http://127.0.0.1:${imagePort}/avatar.png` }).end();
      if (req.url === "/to-evil") return res.writeHead(302, { location: `http://evil.example.com:${imagePort}/avatar.png` }).end();
      if (req.url === "/to-metadata") return res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      if (req.url === "/page.html") return res.writeHead(200, { "content-type": "text/html" }).end("<html></html>");
      if (req.url === "/logo.svg") return res.writeHead(200, { "content-type": "image/svg+xml" }).end("<svg onload=alert(1)></svg>");
      if (req.url === "/huge.png") return res.writeHead(200, { "content-type": "image/png" }).end(Buffer.alloc(3000));
      if (req.url === "/slow.png") return setTimeout(() => res.writeHead(200, { "content-type": "image/png" }).end(PNG), 3000);
      res.writeHead(404).end();
    });
    images.listen(0, "127.0.0.2");
    await once(images, "listening");
    imagePort = (images.address() as AddressInfo).port;

    bff = await buildBff(
      loadConfig(bffConfigSchema, {
        WEB_DIST_DIR: "/nonexistent",
        AUTH_URL: auth.url,
        BLOG_URL: blog.url,
        NOTIFIER_URL: notifier.url,
        TRANSCRIPTION_URL: transcriptions.url,
        SUPPORT_RATE_LIMIT_PER_HOUR: "2",
        CONTACT_RATE_LIMIT_PER_HOUR: "1",
        IMAGE_PROXY_ALLOW_CIDRS: "127.0.0.2/32",
        SESSION_CACHE_TTL_MS: "0",
      }),
      logger,
      { imageResolver: resolver },
    );
  });

  afterAll(async () => {
    await bff?.close();
    images?.close();
    await blog?.close();
    await auth?.close();
    await notifier?.close();
    await transcriptions?.close();
    await database?.close();
    await testDb?.drop();
  });

  describe("blog", () => {
    it("GET /api/v1/blog/posts lists the seeded posts without a session", async () => {
      const response = await bff.inject({ method: "GET", url: "/api/v1/blog/posts?limit=2" });
      expect(response.statusCode).toBe(200);
      const body = response.json() as { posts: Array<{ slug: string; body_html: string }>; total_count: number };
      expect(body.posts).toHaveLength(2);
      expect(body.total_count).toBeGreaterThanOrEqual(3);
      expect(body.posts[0]!.slug).toBe("building-products-fast-with-ai");
    });

    it("GET /api/v1/blog/posts/{slug} returns the post with its HTML; an unknown slug is 404 'Post not found'", async () => {
      const found = await bff.inject({ method: "GET", url: "/api/v1/blog/posts/how-speech-to-text-works" });
      expect(found.statusCode).toBe(200);
      expect(found.json().post).toMatchObject({ title: "How speech-to-text actually works", meta_description: expect.any(String) });
      expect(found.json().post.body_html).toContain("<h2>");
      const missing = await bff.inject({ method: "GET", url: "/api/v1/blog/posts/nope" });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ error: { code: "not_found", message: "Post not found" } });
    });

    it("POST /api/v1/blog/webhook: a signed delivery → {received: true}; a bad or replayed one → 401 and nothing changes", async () => {
      const body = JSON.stringify({
        action: "create",
        timestamp: Math.floor(Date.now() / 1000),
        post: { slug: "from-webhook", title: "From the webhook", body_markdown: "Hi <script>x()</script>" },
      });
      const bad = await bff.inject({ method: "POST", url: "/api/v1/blog/webhook", payload: { body, signature: "ab".repeat(32) } });
      expect(bad.statusCode).toBe(401);
      expect((await bff.inject({ method: "GET", url: "/api/v1/blog/posts/from-webhook" })).statusCode).toBe(404);

      const signature = signWebhookBody(body, SECRET);
      const ok = await bff.inject({ method: "POST", url: "/api/v1/blog/webhook", payload: { body, signature } });
      expect(ok.json()).toEqual({ received: true });
      const post = (await bff.inject({ method: "GET", url: "/api/v1/blog/posts/from-webhook" })).json().post;
      expect(post.body_html).not.toContain("<script");

      const replay = await bff.inject({ method: "POST", url: "/api/v1/blog/webhook", payload: { body, signature } });
      expect(replay.statusCode).toBe(401);
    });
  });

  describe("image proxy", () => {
    const proxy = (url: string, cookie: string | undefined = COOKIE) =>
      bff.inject({ method: "POST", url: "/api/v1/image-proxy", payload: { url }, headers: cookie ? { cookie } : {} });

    it("needs a session", async () => {
      expect((await proxy(`http://images.example.com:${imagePort}/avatar.png`, "")).statusCode).toBe(401);
    });

    it("returns a real image from an allowed host, without forwarding cookies", async () => {
      const response = await proxy(`http://images.example.com:${imagePort}/avatar.png`, `${COOKIE}; other=1`);
      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe("image/png");
      expect(response.headers["x-content-type-options"]).toBe("nosniff");
      expect(response.rawPayload.equals(PNG)).toBe(true);
    });

    it.each([
      "http://localhost/",
      "http://127.0.0.1/",
      "http://10.0.0.1/",
      "http://172.16.0.1/",
      "http://192.168.1.1/",
      "http://[::1]/",
      "http://169.254.169.254/latest/meta-data/",
      "http://2130706433/",
      "http://0x7f000001/",
      "http://0177.0.0.1/",
      "http://0/",
      "http://0.0.0.0/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:7f00:1]/",
      "http://[fd00::1]/",
      "http://[fe80::1]/",
      "http://100.100.100.200/",
      "http://foo.localhost/",
      "http://evil.example.com/avatar.png",
      "http://mixed.example.com/avatar.png",
    ])("refuses %s", async (url) => {
      const response = await proxy(url);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.message).toBe("This URL points to localhost or a private network and cannot be loaded");
    });

    it.each(["/to-loopback", "/to-evil", "/to-metadata"])("refuses a public-looking URL that redirects to a private address (%s)", async (path) => {
      const response = await proxy(`http://images.example.com:${imagePort}${path}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.message).toBe("This URL points to localhost or a private network and cannot be loaded");
    });

    it("refuses non-images (HTML, SVG), other schemes and unknown hosts", async () => {
      for (const [url, message] of [
        [`http://images.example.com:${imagePort}/page.html`, "The URL is not an image"],
        [`http://images.example.com:${imagePort}/logo.svg`, "The URL is not an image"],
        ["file:///etc/passwd", "Only http:// and https:// image URLs can be loaded"],
        ["http://nowhere.example.com/a.png", "The host nowhere.example.com could not be found"],
      ] as const) {
        const response = await proxy(url);
        expect(response.statusCode, url).toBe(400);
        expect(response.json().error.message).toBe(message);
      }
    });

    it("enforces the size and time limits", async () => {
      const policy = addressPolicy(["127.0.0.2/32"]);
      await expect(fetchImage(`http://images.example.com:${imagePort}/huge.png`, { policy, resolver, maxBytes: 1000, timeoutMs: 2000 })).rejects.toThrow(
        "The image is too large",
      );
      await expect(fetchImage(`http://images.example.com:${imagePort}/slow.png`, { policy, resolver, maxBytes: 1000, timeoutMs: 200 })).rejects.toThrow(
        "The image took too long to load",
      );
    });
  });

  describe("AI greeting", () => {
    it("is personal and follows the time zone; without GROQ_API_KEY it is the template", async () => {
      const response = await bff.inject({ method: "GET", url: "/api/v1/ai-greeting?tz=UTC", headers: { cookie: COOKIE } });
      expect(response.statusCode).toBe(200);
      expect(response.json().greeting).toContain("Ada");
      expect((await bff.inject({ method: "GET", url: "/api/v1/ai-greeting" })).statusCode).toBe(401);
    });

    it("picks the time of day from the zone, UTC for an unknown one", () => {
      const at = new Date("2025-06-01T06:30:00Z");
      expect(timeOfDayOf(localClock(at, "UTC").hour)).toBe("morning");
      expect(timeOfDayOf(localClock(at, "America/Los_Angeles").hour)).toBe("night");
      expect(timeOfDayOf(localClock(at, "Asia/Tokyo").hour)).toBe("afternoon");
      expect(timeOfDayOf(localClock(at, "Not/AZone").hour)).toBe("morning");
      expect(templateGreeting({ name: "Ada", timeOfDay: "evening", localTime: "" })).toBe("Good evening, Ada! Let's get those recordings transcribed.");
    });

    it("answers null when the LLM fails or is too slow, and never fails the request", async () => {
      const config = loadConfig(bffConfigSchema, { WEB_DIST_DIR: "/nonexistent", AUTH_URL: auth.url, AI_GREETING_TIMEOUT_MS: "100", SESSION_CACHE_TTL_MS: "0" });
      const slow = await buildBff(config, logger, {
        greetingWriter: (_input, signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
      });
      const failing = await buildBff(config, logger, { greetingWriter: async () => Promise.reject(new Error("boom")) });
      const writing = await buildBff(config, logger, { greetingWriter: async (input) => `Hi ${input.name}, ${input.timeOfDay}!` });
      try {
        for (const [app, expected] of [[slow, null], [failing, null], [writing, expect.stringMatching(/^Hi Ada, /)]] as const) {
          const response = await app.inject({ method: "GET", url: "/api/v1/ai-greeting?tz=Europe/Berlin", headers: { cookie: COOKIE } });
          expect(response.statusCode).toBe(200);
          expect(response.json().greeting).toEqual(expected);
        }
      } finally {
        await Promise.all([slow.close(), failing.close(), writing.close()]);
      }
    });
  });

  describe("support and contact", () => {
    it("POST /api/v1/support sends the user's e-mail from the session and is limited per user", async () => {
      const send = (payload: object, cookie = COOKIE) =>
        bff.inject({ method: "POST", url: "/api/v1/support", payload, headers: cookie ? { cookie } : {} });
      expect((await send({ subject: "Hi", message: "Help" }, "")).statusCode).toBe(401);
      expect((await send({ subject: " ", message: "Help" })).statusCode).toBe(400);
      const ok = await send({ subject: "Export fails", message: "Help", transcription_id: "t-1" });
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toEqual({ ticket_id: expect.any(String) });
      expect(tickets.at(-1)).toEqual({ kind: "support", userId: "u1", email: "ada@example.com", subject: "Export fails", transcriptionId: "t-1" });
      // Someone else's transcript (or none): 404, and no ticket points support at it.
      const before = tickets.length;
      const foreign = await send({ subject: "Send me this", message: "Help", transcription_id: "t-2" });
      expect(foreign.statusCode).toBe(404);
      expect(tickets.length).toBe(before);
      expect((await send({ subject: "Again", message: "Help" })).statusCode).toBe(200);
      const limited = await send({ subject: "Third", message: "Help" });
      expect(limited.statusCode).toBe(429);
      expect(limited.json().error.code).toBe("resource_exhausted");
      // As the OpenAPI document promises every 429: when to try again, in seconds (the window is an hour).
      expect(Number(limited.headers["retry-after"])).toBeGreaterThan(3500);
      expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(3600);
    });

    it("POST /api/v1/contact is public and limited per client address", async () => {
      const send = () => bff.inject({ method: "POST", url: "/api/v1/contact", payload: { name: "Grace", email: "grace@example.com", message: "Hello" } });
      expect((await send()).statusCode).toBe(200);
      expect(tickets.at(-1)).toEqual({ kind: "contact", name: "Grace", email: "grace@example.com" });
      const limited = await send();
      expect(limited.statusCode).toBe(429);
      expect(limited.headers["retry-after"]).toMatch(/^\d+$/);
    });
  });
});
