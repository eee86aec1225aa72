import { createServer, type IncomingMessage } from "node:http";
import { gunzipSync } from "node:zlib";
import { fromBinary } from "@bufbuild/protobuf";
import { createLogger, createServiceClient, type EventEnvelope, type PlatformEventTables, toEnvelope } from "@transcribe/platform";
import { AuthService } from "@transcribe/proto/auth/v1/auth";
import { TrackUserSignupSchema, UserDeletedSchema } from "@transcribe/proto/events/v1/events";
import type { Kysely } from "kysely";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyticsConsumer, createAnalytics, SIGNUP_EVENT } from "../src/events/analytics.js";
import { drainUserChanges, userChangeEvent } from "../src/events/user-changes.js";
import type { AuthDatabase } from "../src/db/schema.js";
import { type AuthHarness, signInWithMagicLink, signUpWithPassword, startAuth } from "./harness.js";

describe("AuthService over Connect", () => {
  let h: AuthHarness;
  let client: ReturnType<typeof createServiceClient<typeof AuthService>>;
  beforeAll(async () => {
    h = await startAuth();
    client = createServiceClient(AuthService, h.server.url, { timeoutMs: 5_000 });
  });
  afterAll(() => h?.close());

  it("GetSession returns the user and session for the browser's Cookie header", async () => {
    const browser = await signInWithMagicLink(h, "rpc-1@example.com");
    const answer = await client.getSession({ cookie: browser.cookieHeader() });
    expect(answer.user?.email).toBe("rpc-1@example.com");
    expect(answer.user?.emailVerified).toBe(true);
    expect(answer.user?.name).toBeUndefined(); // better-auth's "" is "no name" (docs/requirements.md "Entities": optional)
    expect(answer.session?.id).toBeTruthy();
    expect(answer.session?.expiresAt).toBeDefined();
  });

  it("GetSession without a cookie, or with a revoked session, is an empty answer, not an error", async () => {
    expect((await client.getSession({ cookie: "" })).user).toBeUndefined();
    const browser = await signInWithMagicLink(h, "rpc-2@example.com");
    const cookie = browser.cookieHeader();
    await browser.post("/auth/sign-out");
    const answer = await client.getSession({ cookie });
    expect(answer.user).toBeUndefined();
    expect(answer.session).toBeUndefined();
  });

  it("GetSession passes on the Set-Cookie of a session better-auth refreshed", async () => {
    const browser = await signInWithMagicLink(h, "rpc-3@example.com");
    // Make the session old enough for better-auth to extend it (updateAge, 1 day by default).
    await sql`update sessions set expires_at = now() + interval '1 day'`.execute(h.database.db);
    const answer = await client.getSession({ cookie: browser.cookieHeader() });
    expect(answer.user?.email).toBe("rpc-3@example.com");
    expect(answer.setCookie.some((c) => c.includes("session_token="))).toBe(true);
  });

  it("GetUser returns the user; NOT_FOUND for an unknown id; INVALID_ARGUMENT for none", async () => {
    const browser = await signUpWithPassword(h, "rpc-4@example.com");
    const id = (await browser.get("/auth/get-session")).body.user.id;
    const found = await client.getUser({ userId: id });
    expect(found.user).toMatchObject({ id, email: "rpc-4@example.com", name: "Test User", emailVerified: false });
    await expect(client.getUser({ userId: "nope" })).rejects.toMatchObject({ rawMessage: "User not found" });
    await expect(client.getUser({ userId: "" })).rejects.toMatchObject({ rawMessage: "user_id is required" });
  });
});

describe("user events", () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(() => h?.close());

  const outboxEvents = async () =>
    (
      await (h.database.db as Kysely<PlatformEventTables>)
        .selectFrom("platform_outbox")
        .select(["id", "type", "payload", "topic", "key"])
        .where("topic", "=", "auth.users")
        .orderBy("seq")
        .execute()
    ).map((row) => ({
      ...row,
      userId:
        row.type === TrackUserSignupSchema.typeName
          ? fromBinary(TrackUserSignupSchema, row.payload).userId
          : fromBinary(UserDeletedSchema, row.payload).userId,
    }));

  it("a sign-up puts TrackUserSignup in the outbox, a deletion UserDeleted, each once", async () => {
    const browser = await signInWithMagicLink(h, "ev-1@example.com");
    const id = (await browser.get("/auth/get-session")).body.user.id;
    await browser.post("/auth/delete-user", {});
    const db = h.database.db as Kysely<AuthDatabase>;
    // The background relay is not running in tests; drain by hand, twice.
    await drainUserChanges(db);
    await drainUserChanges(db);
    const events = (await outboxEvents()).filter((e) => e.userId === id);
    expect(events.map((e) => e.type)).toEqual([TrackUserSignupSchema.typeName, UserDeletedSchema.typeName]);
    expect(events.every((e) => e.key === id)).toBe(true);
    expect((await db.selectFrom("user_changes").selectAll().execute()).length).toBe(0);
  });

  it("a password sign-up is a sign-up too", async () => {
    const browser = await signUpWithPassword(h, "ev-2@example.com");
    const id = (await browser.get("/auth/get-session")).body.user.id;
    await drainUserChanges(h.database.db as Kysely<AuthDatabase>);
    expect((await outboxEvents()).filter((e) => e.userId === id).map((e) => e.type)).toEqual([TrackUserSignupSchema.typeName]);
  });
});

describe("TrackUserSignup → PostHog", () => {
  const received: Array<{ path: string; body: any }> = [];
  const posthog = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", () => {
      let raw = Buffer.concat(chunks);
      if (request.headers["content-encoding"] === "gzip") raw = gunzipSync(raw);
      received.push({ path: request.url ?? "", body: JSON.parse(raw.toString("utf8") || "null") });
      response.writeHead(200, { "content-type": "application/json" }).end('{"status":1}');
    });
  });
  let host: string;
  let h: AuthHarness;
  const logger = createLogger("analytics-test", "silent");

  beforeAll(async () => {
    await new Promise<void>((resolve) => posthog.listen(0, "127.0.0.1", resolve));
    const address = posthog.address() as { port: number };
    host = `http://127.0.0.1:${address.port}`;
    h = await startAuth();
  });
  afterAll(async () => {
    await h?.close();
    await new Promise((resolve) => posthog.close(resolve));
  });

  const signupEnvelope = (userId: string): EventEnvelope =>
    toEnvelope(userChangeEvent({ kind: "created", user_id: userId, event_id: crypto.randomUUID(), occurred_at: new Date() }));

  it("with POSTHOG_KEY, a sign-up is captured once (the event id is its uuid), even when delivered twice", async () => {
    const analytics = createAnalytics({ key: "phc_test", host, logger });
    const handler = analyticsConsumer(h.database.db, analytics);
    const envelope = signupEnvelope("user-123");
    await handler(envelope);
    await handler(envelope);
    await analytics.shutdown();
    const events = received.flatMap((r) => (Array.isArray(r.body?.batch) ? r.body.batch : r.body ? [r.body] : []));
    const signups = events.filter((e: any) => e.event === SIGNUP_EVENT);
    expect(signups).toHaveLength(1);
    expect(signups[0]).toMatchObject({ distinct_id: "user-123", uuid: envelope.id });
    expect(received.some((r) => r.body?.api_key === "phc_test")).toBe(true);
  });

  it("PostHog unreachable: the delivery fails (the bus retries it) and is not marked processed", async () => {
    const { freePort } = await import("@transcribe/platform/testing");
    const down = createAnalytics({ key: "phc_test", host: `http://127.0.0.1:${await freePort()}`, logger });
    const envelope = signupEnvelope("user-789");
    await expect(analyticsConsumer(h.database.db, down)(envelope)).rejects.toThrow();
    await down.shutdown();
    received.length = 0;
    const up = createAnalytics({ key: "phc_test", host, logger });
    await analyticsConsumer(h.database.db, up)(envelope);
    await up.shutdown();
    const events = received.flatMap((r) => (Array.isArray(r.body?.batch) ? r.body.batch : []));
    expect(events.filter((e: any) => e.uuid === envelope.id)).toHaveLength(1);
  });

  it("without a key nothing is sent", async () => {
    received.length = 0;
    const analytics = createAnalytics({ key: undefined, host, logger });
    await analyticsConsumer(h.database.db, analytics)(signupEnvelope("user-456"));
    await analytics.shutdown();
    expect(received).toEqual([]);
  });
});
