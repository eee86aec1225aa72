import { randomUUID } from "node:crypto";
import {
  createDatabase,
  createLogger,
  loadConfig,
  migrateToLatest,
  newEvent,
  outboxMigrations,
  startServiceServer,
  toEnvelope,
  type Database,
  type ServiceServer,
} from "@transcribe/platform";
import { createTestDatabase, freePort } from "@transcribe/platform/testing";
import { BillingService } from "@transcribe/proto/billing/v1/billing";
import { TranscriptionCompletedSchema, TranscriptionOutcome } from "@transcribe/proto/events/v1/events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, signInWithMagicLink, startAuth } from "../../auth/test/harness.js";
import { billingConfigSchema } from "@transcribe/billing/config";
import { migrations } from "@transcribe/billing/db/migrations";
import type { BillingDB } from "@transcribe/billing/db/schema";
import { createStripe } from "@transcribe/billing/domain/stripe";
import { billingConsumer } from "@transcribe/billing/events/consumer";
import { billingServiceImpl } from "@transcribe/billing/rpc/billing-service";
import { stripeMockAvailable, stripeMockUrl } from "../../billing/test/stripe-mock.js";
import { buildBff } from "../src/app.js";
import { bffConfigSchema } from "../src/config.js";

const logger = createLogger("bff-billing-test", "silent");
const WEBHOOK_SECRET = "whsec_bff_billing_test";
const LIMIT = 5;
const stripeMockUp = await stripeMockAvailable("bff: billing routes with payments on");

interface Stack {
  origin: string;
  database: Database<BillingDB>;
  consume: ReturnType<typeof billingConsumer>;
  close(): Promise<void>;
}

/** The real auth service, a real billing service on its own database, and the BFF in front. */
async function startStack(auth: AuthHarness, billingEnv: Record<string, string>): Promise<Stack> {
  const testDb = await createTestDatabase("bff_billing");
  const database = createDatabase<BillingDB>(testDb.url, { max: 4 });
  await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
  const config = billingConfigSchema.parse({ FREE_TRIAL_MINUTES: String(LIMIT), ...billingEnv });
  const billing: ServiceServer = await startServiceServer({
    name: "billing",
    host: "127.0.0.1",
    port: 0,
    logger,
    routes: (router) => router.service(BillingService, billingServiceImpl({ db: database.db, config, stripe: createStripe(config), logger })),
  });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const bff = await buildBff(
    loadConfig(bffConfigSchema, { WEB_DIST_DIR: "/nonexistent", AUTH_URL: auth.server.url, BILLING_URL: billing.url, PUBLIC_BASE_URL: origin }),
    logger,
  );
  await bff.listen({ host: "127.0.0.1", port });
  return {
    origin,
    database,
    consume: billingConsumer(database.db, logger),
    async close() {
      await bff.close();
      await billing.close();
      await database.close();
      await testDb.drop();
    },
  };
}

function client(origin: string) {
  return async (cookie: string | undefined, method: string, url: string, init: { body?: string; headers?: Record<string, string> } = {}) => {
    const response = await fetch(`${origin}${url}`, {
      method,
      // What a browser sends with the SPA's same-origin requests.
      headers: { origin, ...(cookie ? { cookie } : {}), ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: response.status, body: body as Record<string, unknown> & { error?: { code: string; message: string } } };
  };
}

function completed(userId: string, seconds: number) {
  return toEnvelope(newEvent(TranscriptionCompletedSchema, { userId, jobId: randomUUID(), audioDuration: seconds, status: TranscriptionOutcome.SUCCESS }));
}

let auth: AuthHarness;
beforeAll(async () => {
  auth = await startAuth();
}, 60_000);
afterAll(async () => auth?.close());

describe("billing routes without Stripe (the embedded default)", () => {
  let stack: Stack;
  let cookie: string;
  let userId: string;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    stack = await startStack(auth, {});
    api = client(stack.origin);
    const session = await signInWithMagicLink(auth, "bff-billing-free@example.com");
    cookie = session.cookieHeader();
    userId = ((await api(cookie, "GET", "/api/v1/me")).body as { id: string }).id;
  }, 60_000);
  afterAll(async () => stack?.close());

  it("needs a session on every billing route (401 before anything runs)", async () => {
    for (const [method, url] of [
      ["GET", "/api/v1/trial-limits"],
      ["GET", "/api/v1/usage-stats"],
      ["GET", "/api/v1/billing/subscription"],
      ["POST", "/api/v1/billing/checkout"],
      ["POST", "/api/v1/billing/portal"],
      ["POST", "/api/v1/billing/restore"],
      ["POST", "/auth/subscription/restore"],
    ] as const) {
      const answer = await api(undefined, method, url);
      expect(answer.status, `${method} ${url}`).toBe(401);
      expect(answer.body.error?.code).toBe("unauthenticated");
    }
  });

  it("answers limits, usage and the plan in the documented shapes", async () => {
    await stack.consume(completed(userId, 61)); // 2 minutes
    expect((await api(cookie, "GET", "/api/v1/trial-limits")).body).toEqual({ used_total: 2, total_limit: LIMIT, tier: "free" });
    expect((await api(cookie, "GET", "/api/v1/usage-stats")).body).toEqual({
      this_month: { file_count: 1, total_minutes: 2 },
      all_time: { file_count: 1, total_minutes: 2 },
    });
    expect((await api(cookie, "GET", "/api/v1/billing/subscription")).body).toEqual({
      payments_enabled: false,
      tier: "free",
      tier_set_by_admin: false,
      has_billing_account: false,
      status: "none",
      cancel_at_period_end: false,
      current_period_end: null,
    });
  });

  it("says payments are off (409) for checkout, portal, restore and the webhook", async () => {
    for (const url of ["/api/v1/billing/checkout", "/api/v1/billing/portal", "/api/v1/billing/restore", "/auth/subscription/restore"]) {
      const answer = await api(cookie, "POST", url);
      expect(answer.status, url).toBe(409);
      expect(answer.body.error?.message).toBe("Payments are not enabled on this server");
    }
    const webhook = await api(undefined, "POST", "/api/v1/billing/webhook", { body: "{}", headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=00" } });
    expect(webhook.status).toBe(409);
  });
});

describe.skipIf(!stripeMockUp)("billing routes with Stripe (stripe-mock) and the raw-body webhook", () => {
  let stack: Stack;
  let cookie: string;
  let userId: string;
  let api: ReturnType<typeof client>;
  // Stripe's SDK as the billing service loads it (it is billing's dependency, not the BFF's).
  const sdk = createStripe({ STRIPE_SECRET_KEY: "sk_test_123", STRIPE_API_BASE: undefined })!;

  beforeAll(async () => {
    stack = await startStack(auth, {
      STRIPE_SECRET_KEY: "sk_test_123",
      STRIPE_PRICE_ID: "price_premium",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_BASE: stripeMockUrl,
    });
    api = client(stack.origin);
    cookie = (await signInWithMagicLink(auth, "bff-billing-paid@example.com")).cookieHeader();
    userId = ((await api(cookie, "GET", "/api/v1/me")).body as { id: string }).id;
  }, 60_000);
  afterAll(async () => stack?.close());

  /** A Stripe event as Stripe sends it: JSON bytes, signed by Stripe's own SDK. */
  function webhook(event: { id?: string; type: string; object: Record<string, unknown> }, options: { secret?: string; timestamp?: number; body?: (json: string) => string } = {}) {
    const json = JSON.stringify({ id: event.id ?? `evt_${randomUUID()}`, object: "event", type: event.type, data: { object: event.object } });
    const signature = sdk.webhooks.generateTestHeaderString({ payload: json, secret: options.secret ?? WEBHOOK_SECRET, ...(options.timestamp ? { timestamp: options.timestamp } : {}) });
    return api(undefined, "POST", "/api/v1/billing/webhook", {
      body: options.body ? options.body(json) : json,
      headers: { "content-type": "application/json", "stripe-signature": signature },
    });
  }
  const tier = async () => ((await api(cookie, "GET", "/api/v1/trial-limits")).body as { tier: string }).tier;

  it("starts a checkout for the premium price and opens the portal", async () => {
    const checkout = await api(cookie, "POST", "/api/v1/billing/checkout");
    expect(checkout.status).toBe(200);
    expect(checkout.body.checkout_url).toMatch(/^https:\/\//);
    expect(checkout.body.session_id).toMatch(/^cs_/);
    const portal = await api(cookie, "POST", "/api/v1/billing/portal");
    expect(portal.status).toBe(200);
    expect(portal.body.portal_url).toMatch(/^https:\/\//);
    expect((await api(cookie, "GET", "/api/v1/billing/subscription")).body).toMatchObject({ payments_enabled: true, has_billing_account: true });
  });

  it("keeps the webhook's raw bytes: signed events apply once, forged, stale, tampered or re-serialized ones change nothing", async () => {
    const customer = `cus_${randomUUID().slice(0, 8)}`;
    const checkout = { type: "checkout.session.completed", object: { id: "cs_bff", client_reference_id: userId, customer, subscription: "sub_bff", amount_total: 1200, currency: "eur" } };

    expect((await webhook(checkout, { secret: "whsec_forged" })).status).toBe(401);
    expect((await webhook(checkout, { timestamp: Math.floor(Date.now() / 1000) - 3600 })).status).toBe(401);
    expect((await webhook(checkout, { body: (json) => json.replace("1200", "1") })).status).toBe(401);
    // Same JSON, other bytes (as a body parser that re-serializes would send): refused.
    expect((await webhook(checkout, { body: (json) => JSON.stringify(JSON.parse(json), null, 2) })).status).toBe(401);
    const unsigned = await api(undefined, "POST", "/api/v1/billing/webhook", { body: "{}", headers: { "content-type": "application/json" } });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body.error?.message).toBe("Missing Stripe-Signature header");
    // Whatever the content type, the bytes are what is verified; junk is a 4xx, never a 5xx.
    const junk = await api(undefined, "POST", "/api/v1/billing/webhook", { body: "\u0000\u0001not json", headers: { "content-type": "text/plain", "stripe-signature": "t=1,v1=00" } });
    expect(junk.status).toBe(401);
    expect(await tier()).toBe("free");

    const id = `evt_${randomUUID()}`;
    expect((await webhook({ ...checkout, id })).status).toBe(200);
    expect((await webhook({ ...checkout, id })).status).toBe(200); // replayed: received, no effect
    expect(await tier()).toBe("premium");
    const purchased = await stack.database.db.selectFrom("platform_outbox").select("type").where("type", "like", "%SubscriptionPurchased").execute();
    expect(purchased).toHaveLength(1);

    // Cancelling at period end shows in the plan; restore (the spec's path) answers with the status.
    const updated = await webhook({
      type: "customer.subscription.updated",
      object: { id: "sub_bff", customer, status: "active", cancel_at_period_end: true, items: { data: [{ price: { id: "price_premium" }, current_period_end: 1900000000 }] } },
    });
    expect(updated.status).toBe(200);
    expect((await api(cookie, "GET", "/api/v1/billing/subscription")).body).toMatchObject({
      tier: "premium",
      status: "active",
      cancel_at_period_end: true,
      current_period_end: new Date(1900000000 * 1000).toISOString(),
    });
    // Premium: checkout is refused with a clear message.
    const again = await api(cookie, "POST", "/api/v1/billing/checkout");
    expect(again.status).toBe(409);
    expect(again.body.error?.message).toBe("You already have the premium plan");

    const deleted = await webhook({ type: "customer.subscription.deleted", object: { id: "sub_bff", customer, status: "canceled" } });
    expect(deleted.status).toBe(200);
    expect(await tier()).toBe("free");
    expect((await api(cookie, "GET", "/api/v1/billing/subscription")).body).toMatchObject({ tier: "free", status: "canceled" });

    // Restore at the spec's path re-reads the customer's subscriptions from Stripe (stripe-mock
    // answers a fixture) and reports what it found.
    const restored = await api(cookie, "POST", "/auth/subscription/restore");
    expect(restored.status).toBe(200);
    expect(restored.body).toEqual({ status: expect.stringMatching(/^(none|active|trialing|past_due|canceled|unpaid)$/), tier: expect.stringMatching(/^(free|premium)$/) });
  });
});
