import { Code, ConnectError } from "@connectrpc/connect";
import {
  createDatabase,
  createLogger,
  createServiceClient,
  migrateToLatest,
  newEvent,
  outboxMigrations,
  startServiceServer,
  toEnvelope,
  type ServiceServer,
} from "@transcribe/platform";
import { createTestDatabase, freePort } from "@transcribe/platform/testing";
import { BillingService, SubscriptionStatus, Tier } from "@transcribe/proto/billing/v1/billing";
import { TranscriptionCompletedSchema, TranscriptionOutcome, UserDeletedSchema } from "@transcribe/proto/events/v1/events";
import { randomUUID } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { billingConfigSchema } from "../src/config.js";
import { migrations } from "../src/db/migrations.js";
import type { BillingDB } from "../src/db/schema.js";
import { minutesOf } from "../src/domain/usage.js";
import { billingConsumer } from "../src/events/consumer.js";
import { billingServiceImpl } from "../src/rpc/billing-service.js";
import { createStripe } from "../src/domain/stripe.js";
import { stripeMockAvailable, stripeMockUrl } from "./stripe-mock.js";

const logger = createLogger("billing-test", "silent");
const WEBHOOK_SECRET = "whsec_test_secret";
const PRICE = "price_premium";
const LIMIT = 10;

const stripeMockUp = await stripeMockAvailable("billing: Stripe API tests");

async function setup(env: Record<string, string>) {
  const testDb = await createTestDatabase("billing");
  const database = createDatabase<BillingDB>(testDb.url, { max: 8 });
  await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
  const config = billingConfigSchema.parse({ FREE_TRIAL_MINUTES: String(LIMIT), ...env });
  let clock = new Date("2026-03-15T12:00:00Z");
  const impl = billingServiceImpl({ db: database.db, config, stripe: createStripe(config), logger, now: () => clock });
  const server: ServiceServer = await startServiceServer({
    name: "billing",
    host: "127.0.0.1",
    port: await freePort(),
    logger,
    routes: (router) => router.service(BillingService, impl),
  });
  const client = createServiceClient(BillingService, server.url);
  const handler = billingConsumer(database.db, logger);
  return {
    database,
    client,
    handler,
    setClock: (at: Date) => (clock = at),
    async close() {
      await server.close();
      await database.close();
      await testDb.drop();
    },
  };
}

const at = (iso: string) => {
  const ms = Date.parse(iso);
  return { seconds: BigInt(Math.floor(ms / 1000)), nanos: 0 };
};

function completed(userId: string, jobId: string, audioDuration: number, when = "2026-03-15T10:00:00Z", status = TranscriptionOutcome.SUCCESS) {
  return toEnvelope(newEvent(TranscriptionCompletedSchema, { userId, jobId, audioDuration, status, timestamp: at(when) }));
}

async function codeOf(promise: Promise<unknown>): Promise<Code | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return ConnectError.from(error).code;
  }
}

describe("usage rounding", () => {
  it("counts whole minutes per file, rounded up", () => {
    expect([0, 1, 59, 60, 61, 120, 121].map(minutesOf)).toEqual([0, 1, 1, 1, 2, 2, 3]);
  });
});

describe("billing without Stripe (real PostgreSQL, Connect)", () => {
  let t: Awaited<ReturnType<typeof setup>>;
  beforeAll(async () => {
    t = await setup({});
  });
  afterAll(async () => t?.close());

  it("refuses Stripe RPCs with FAILED_PRECONDITION", async () => {
    const user = randomUUID();
    for (const call of [
      t.client.createCheckoutSession({ userId: user, email: "a@example.com", successUrl: "http://x/s", cancelUrl: "http://x/c" }),
      t.client.createBillingPortalSession({ userId: user, returnUrl: "http://x/a" }),
      t.client.handleStripeWebhook({ payload: new Uint8Array([123, 125]), signature: "t=1,v1=00" }),
      t.client.restoreSubscription({ userId: user, email: "a@example.com" }),
    ]) {
      await expect(call).rejects.toMatchObject({ code: Code.FailedPrecondition, rawMessage: "Payments are not enabled on this server" });
    }
  });

  it("answers limits for a new user and rejects an empty user id", async () => {
    expect(await t.client.getTrialLimits({ userId: randomUUID() })).toMatchObject({ usedTotal: 0, totalLimit: LIMIT, tier: Tier.FREE });
    expect(await codeOf(t.client.getTrialLimits({ userId: "" }))).toBe(Code.InvalidArgument);
    expect(await codeOf(t.client.getSubscription({ userId: "" }))).toBe(Code.InvalidArgument);
  });

  it("says payments are off and describes a plan without a subscription", async () => {
    expect(await t.client.getSubscription({ userId: randomUUID() })).toMatchObject({
      paymentsEnabled: false,
      tier: Tier.FREE,
      tierSetByAdmin: false,
      hasBillingAccount: false,
      status: SubscriptionStatus.NONE,
      cancelAtPeriodEnd: false,
      currentPeriodEnd: 0n,
    });
  });

  it("allows below and at the limit and refuses above it", async () => {
    const user = randomUUID();
    await t.handler(completed(user, randomUUID(), 5 * 60));
    // 5 used: 4 more is below, 5 more is exactly at the limit, 6 is above.
    expect(await t.client.checkQuota({ userId: user, audioSeconds: 4 * 60 })).toMatchObject({ allowed: true, used: 5, remaining: 5 });
    expect(await t.client.checkQuota({ userId: user, audioSeconds: 5 * 60 })).toMatchObject({ allowed: true, remaining: 5 });
    expect(await t.client.checkQuota({ userId: user, audioSeconds: 5 * 60 + 1 })).toMatchObject({ allowed: false, requested: 6, remaining: 5 });
    // Reaching the limit exactly: nothing more fits, not even one second.
    await t.handler(completed(user, randomUUID(), 5 * 60));
    expect(await t.client.checkQuota({ userId: user, audioSeconds: 1 })).toMatchObject({ allowed: false, used: 10, remaining: 0, limit: LIMIT });
    expect(await t.client.getTrialLimits({ userId: user })).toMatchObject({ usedTotal: 10, totalLimit: LIMIT });
  });

  it("lets through only what fits when concurrent starts together exceed the limit", async () => {
    const user = randomUUID();
    // 3 minutes each, 10 free: at most 3 of 8 concurrent starts fit.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.client.checkQuota({ userId: user, audioSeconds: 170, jobId: randomUUID() })),
    );
    expect(answers.filter((a) => a.allowed)).toHaveLength(3);
    const rows = await t.database.db.selectFrom("billing_usage").selectAll().where("user_id", "=", user).execute();
    expect(rows.map((r) => r.state)).toEqual(["reserved", "reserved", "reserved"]);
  });

  it("settles a reservation once, releases it on failure, and ignores redelivery", async () => {
    const user = randomUUID();
    const ok = randomUUID();
    const bad = randomUUID();
    expect((await t.client.checkQuota({ userId: user, audioSeconds: 300, jobId: ok })).allowed).toBe(true);
    expect((await t.client.checkQuota({ userId: user, audioSeconds: 300, jobId: bad })).allowed).toBe(true);
    // Both reserved: nothing more fits; the same job asking again keeps its reservation.
    expect((await t.client.checkQuota({ userId: user, audioSeconds: 60, jobId: randomUUID() })).allowed).toBe(false);
    expect((await t.client.checkQuota({ userId: user, audioSeconds: 300, jobId: ok })).allowed).toBe(true);

    const success = completed(user, ok, 200); // 4 minutes, settles below the reserved 5
    await t.handler(success);
    await t.handler(success); // redelivered
    await t.handler(completed(user, ok, 200)); // a second event for the same job
    const failed = completed(user, bad, 0, undefined, TranscriptionOutcome.FAILED);
    await t.handler(failed);
    await t.handler(failed);
    expect(await t.client.getTrialLimits({ userId: user })).toMatchObject({ usedTotal: 4 });
    expect(await t.client.getUsageStats({ userId: user })).toMatchObject({ allTime: { fileCount: 1, totalMinutes: 4 } });
    expect(await t.client.checkQuota({ userId: user, audioSeconds: 6 * 60 })).toMatchObject({ allowed: true, remaining: 6 });
  });

  it("splits usage stats at the UTC month boundary", async () => {
    const user = randomUUID();
    await t.handler(completed(user, randomUUID(), 61, "2026-02-28T23:59:59Z")); // 2 min, February
    await t.handler(completed(user, randomUUID(), 30, "2026-03-01T00:00:00Z")); // 1 min, March
    await t.handler(completed(user, randomUUID(), 150, "2026-03-31T23:59:59Z")); // 3 min, March
    t.setClock(new Date("2026-03-31T23:59:59.500Z"));
    expect(await t.client.getUsageStats({ userId: user })).toMatchObject({
      thisMonth: { fileCount: 2, totalMinutes: 4 },
      allTime: { fileCount: 3, totalMinutes: 6 },
    });
    t.setClock(new Date("2026-04-01T00:00:00Z"));
    expect(await t.client.getUsageStats({ userId: user })).toMatchObject({
      thisMonth: { fileCount: 0, totalMinutes: 0 },
      allTime: { fileCount: 3, totalMinutes: 6 },
    });
  });

  it("treats premium (set by an operator) as unlimited and purges a deleted user", async () => {
    const user = randomUUID();
    await t.handler(completed(user, randomUUID(), 11 * 60));
    expect((await t.client.checkQuota({ userId: user, audioSeconds: 60 })).allowed).toBe(false);
    await t.database.db.insertInto("billing_customers").values({ user_id: user, tier: "premium", tier_source: "admin" })
      .onConflict((oc) => oc.column("user_id").doUpdateSet({ tier: "premium", tier_source: "admin" })).execute();
    expect(await t.client.checkQuota({ userId: user, audioSeconds: 3600 })).toMatchObject({ allowed: true, unlimited: true });
    expect((await t.client.getTrialLimits({ userId: user })).tier).toBe(Tier.PREMIUM);
    expect(await t.client.getSubscription({ userId: user })).toMatchObject({ tier: Tier.PREMIUM, tierSetByAdmin: true, status: SubscriptionStatus.NONE });
    await t.handler(toEnvelope(newEvent(UserDeletedSchema, { userId: user })));
    expect(await t.client.getTrialLimits({ userId: user })).toMatchObject({ usedTotal: 0, tier: Tier.FREE });
  });
});

describe.skipIf(!stripeMockUp)("billing with Stripe (stripe-mock, signed webhooks)", () => {
  let t: Awaited<ReturnType<typeof setup>>;
  const sdk = new Stripe("sk_test_123");
  beforeAll(async () => {
    t = await setup({
      STRIPE_SECRET_KEY: "sk_test_123",
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_PRICE_ID: PRICE,
      STRIPE_API_BASE: stripeMockUrl,
    });
  });
  afterAll(async () => t?.close());

  function signed(event: { id?: string; type: string; object: Record<string, unknown> }, options: { secret?: string; timestamp?: number } = {}) {
    const payload = JSON.stringify({ id: event.id ?? `evt_${randomUUID()}`, object: "event", type: event.type, data: { object: event.object } });
    const signature = sdk.webhooks.generateTestHeaderString({
      payload,
      secret: options.secret ?? WEBHOOK_SECRET,
      ...(options.timestamp ? { timestamp: options.timestamp } : {}),
    });
    return { payload: new TextEncoder().encode(payload), signature };
  }
  const tier = async (userId: string) => (await t.client.getTrialLimits({ userId })).tier;
  const outbox = async (type: string) =>
    (await t.database.db.selectFrom("platform_outbox").select(["type", "key"]).where("type", "like", `%${type}`).execute()).length;

  it("creates checkout and portal sessions through the Stripe API", async () => {
    const user = randomUUID();
    expect(await codeOf(t.client.createBillingPortalSession({ userId: user, returnUrl: "http://localhost/account" }))).toBe(Code.FailedPrecondition);
    const checkout = await t.client.createCheckoutSession({
      userId: user,
      email: "buyer@example.com",
      successUrl: "http://localhost/dashboard?subscription=success",
      cancelUrl: "http://localhost/dashboard",
    });
    expect(checkout.checkoutUrl).toMatch(/^https?:\/\//);
    expect(checkout.sessionId).toMatch(/^cs_/);
    const portal = await t.client.createBillingPortalSession({ userId: user, returnUrl: "http://localhost/account" });
    expect(portal.portalUrl).toMatch(/^https?:\/\//);
    expect((await t.client.restoreSubscription({ userId: user, email: "buyer@example.com" })).status).not.toBe(SubscriptionStatus.UNSPECIFIED);
  });

  it("does not take over a customer already linked to another user when found by e-mail", async () => {
    // stripe-mock's customer search answers the same customer for any address, as Stripe
    // would for an address that moved from one account to another.
    const first = randomUUID();
    const second = randomUUID();
    const urls = { successUrl: "http://localhost/dashboard?subscription=success", cancelUrl: "http://localhost/dashboard" };
    await t.client.createCheckoutSession({ userId: first, email: "moved@example.com", ...urls });
    await t.client.createCheckoutSession({ userId: second, email: "moved@example.com", ...urls });
    const rows = await t.database.db
      .selectFrom("billing_customers")
      .select(["user_id", "stripe_customer_id"])
      .where("user_id", "in", [first, second])
      .execute();
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.stripe_customer_id)).toBe(true);
    expect(new Set(rows.map((r) => r.stripe_customer_id)).size).toBe(2);
  });

  it("applies every webhook type once, and forged, stale or replayed ones change nothing", async () => {
    const user = randomUUID();
    const customer = `cus_${randomUUID().slice(0, 8)}`;
    const sub = `sub_${randomUUID().slice(0, 8)}`;
    const purchasedBefore = await outbox("SubscriptionPurchased");
    const cancelledBefore = await outbox("SubscriptionCancelled");

    // Forged (wrong secret) and stale (timestamp 10 minutes old) are refused.
    const checkout = { type: "checkout.session.completed", object: { id: "cs_1", client_reference_id: user, customer, subscription: sub, amount_total: 999, currency: "usd" } };
    expect(await codeOf(t.client.handleStripeWebhook(signed(checkout, { secret: "whsec_forged" })))).toBe(Code.Unauthenticated);
    expect(await codeOf(t.client.handleStripeWebhook(signed(checkout, { timestamp: Math.floor(Date.now() / 1000) - 600 })))).toBe(Code.Unauthenticated);
    const tampered = signed(checkout);
    tampered.payload = new TextEncoder().encode(new TextDecoder().decode(tampered.payload).replace("999", "1"));
    expect(await codeOf(t.client.handleStripeWebhook(tampered))).toBe(Code.Unauthenticated);
    expect(await tier(user)).toBe(Tier.FREE);

    // checkout.session.completed → premium, one SubscriptionPurchased, even when replayed.
    const bought = signed({ ...checkout, id: "evt_checkout_1" });
    expect(await t.client.handleStripeWebhook(bought)).toMatchObject({ received: true });
    expect(await t.client.handleStripeWebhook(bought)).toMatchObject({ received: true });
    expect(await tier(user)).toBe(Tier.PREMIUM);
    expect(await outbox("SubscriptionPurchased")).toBe(purchasedBefore + 1);

    // invoice.payment_failed → free (past_due), SubscriptionCancelled once.
    const failed = signed({ type: "invoice.payment_failed", object: { id: "in_1", customer, subscription: sub } });
    await t.client.handleStripeWebhook(failed);
    await t.client.handleStripeWebhook(failed);
    expect(await tier(user)).toBe(Tier.FREE);
    expect(await outbox("SubscriptionCancelled")).toBe(cancelledBefore + 1);

    // customer.subscription.updated (paid again, cancelling at period end) → premium.
    const updated = signed({ type: "customer.subscription.updated", object: { id: sub, customer, status: "active", cancel_at_period_end: true, items: { data: [{ price: { id: PRICE }, current_period_end: 1900000000 }] } } });
    await t.client.handleStripeWebhook(updated);
    expect(await tier(user)).toBe(Tier.PREMIUM);
    const row = await t.database.db.selectFrom("billing_subscriptions").selectAll().where("stripe_subscription_id", "=", sub).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "active", cancel_at_period_end: true, price_id: PRICE });
    expect(await t.client.getSubscription({ userId: user })).toMatchObject({
      paymentsEnabled: true,
      tier: Tier.PREMIUM,
      tierSetByAdmin: false,
      hasBillingAccount: true,
      status: SubscriptionStatus.ACTIVE,
      cancelAtPeriodEnd: true,
      currentPeriodEnd: 1900000000n,
    });

    // customer.subscription.deleted → free, SubscriptionCancelled.
    const deleted = signed({ type: "customer.subscription.deleted", object: { id: sub, customer, status: "canceled" } });
    await t.client.handleStripeWebhook(deleted);
    await t.client.handleStripeWebhook(deleted);
    expect(await tier(user)).toBe(Tier.FREE);
    expect(await outbox("SubscriptionCancelled")).toBe(cancelledBefore + 2);
    expect(await t.client.getSubscription({ userId: user })).toMatchObject({ tier: Tier.FREE, status: SubscriptionStatus.CANCELED });

    // Replaying the old checkout event (same id) does not make the user premium again.
    expect(await t.client.handleStripeWebhook(signed({ ...checkout, id: "evt_checkout_1" }))).toMatchObject({ received: true });
    expect(await tier(user)).toBe(Tier.FREE);
    expect(await outbox("SubscriptionPurchased")).toBe(purchasedBefore + 1);

    // Premium users are not held to the limit.
    await t.client.handleStripeWebhook(signed({ type: "customer.subscription.updated", object: { id: sub, customer, status: "active" } }));
    expect(await t.client.checkQuota({ userId: user, audioSeconds: 100 * 60 })).toMatchObject({ allowed: true, unlimited: true });
  });
});
