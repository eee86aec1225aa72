import { AppError, enqueueEvents, newEvent, type Logger } from "@transcribe/platform";
import { SubscriptionCancelledSchema, SubscriptionPurchasedSchema } from "@transcribe/proto/events/v1/events";
import Stripe from "stripe";
import type { BillingConfig } from "../config.js";
import type { Db, Tier, Trx } from "../db/schema.js";
import { lockCustomer } from "./usage.js";

export const PAYMENTS_OFF = "Payments are not enabled on this server";
export const PLAN = "premium";

/** Stripe subscription statuses that grant the premium tier. */
const PREMIUM_STATUSES = new Set(["active", "trialing"]);

export function createStripe(config: Pick<BillingConfig, "STRIPE_SECRET_KEY" | "STRIPE_API_BASE">): Stripe | undefined {
  if (!config.STRIPE_SECRET_KEY) return undefined;
  if (!config.STRIPE_API_BASE) return new Stripe(config.STRIPE_SECRET_KEY, { maxNetworkRetries: 2, telemetry: false });
  const base = new URL(config.STRIPE_API_BASE);
  return new Stripe(config.STRIPE_SECRET_KEY, {
    host: base.hostname,
    port: base.port || (base.protocol === "https:" ? 443 : 80),
    protocol: base.protocol === "https:" ? "https" : "http",
    maxNetworkRetries: 0,
    telemetry: false,
  });
}

// The parts of Stripe objects billing reads. Typed here rather than through the SDK's
// types because fields move between API versions (current_period_end, invoice.subscription).
interface CheckoutSessionObject {
  id: string;
  client_reference_id?: string | null;
  customer?: string | { id: string } | null;
  customer_email?: string | null;
  subscription?: string | { id: string } | null;
  amount_total?: number | null;
  currency?: string | null;
  metadata?: Record<string, string> | null;
}
interface SubscriptionObject {
  id: string;
  customer: string | { id: string };
  status: string;
  cancel_at_period_end?: boolean;
  current_period_end?: number | null;
  metadata?: Record<string, string> | null;
  items?: { data?: Array<{ price?: { id?: string } | null; current_period_end?: number | null }> };
}
interface InvoiceObject {
  id: string;
  customer?: string | { id: string } | null;
  subscription?: string | { id: string } | null;
  parent?: { subscription_details?: { subscription?: string | { id: string } | null } | null } | null;
}

const idOf = (value: string | { id: string } | null | undefined): string | undefined =>
  typeof value === "string" ? value : (value?.id ?? undefined);

async function userByCustomer(trx: Trx, customerId: string | undefined, metadata?: Record<string, string> | null) {
  if (customerId) {
    const row = await trx.selectFrom("billing_customers").select("user_id").where("stripe_customer_id", "=", customerId).executeTakeFirst();
    if (row) return row.user_id;
  }
  return metadata?.user_id || undefined;
}

/** Stores a subscription as Stripe describes it. */
export async function storeSubscription(trx: Trx, userId: string, sub: SubscriptionObject): Promise<void> {
  const item = sub.items?.data?.[0];
  const periodEnd = sub.current_period_end ?? item?.current_period_end ?? null;
  const values = {
    user_id: userId,
    stripe_customer_id: idOf(sub.customer) ?? "",
    status: sub.status,
    price_id: item?.price?.id ?? null,
    cancel_at_period_end: Boolean(sub.cancel_at_period_end),
    current_period_end: periodEnd ? new Date(periodEnd * 1000) : null,
  };
  await trx
    .insertInto("billing_subscriptions")
    .values({ stripe_subscription_id: sub.id, ...values })
    .onConflict((oc) => oc.column("stripe_subscription_id").doUpdateSet({ ...values, updated_at: new Date() }))
    .execute();
}

/**
 * Sets the tier from the user's stored subscriptions (premium while one is active or
 * trialing) and emits SubscriptionCancelled when that moves a premium user to free. A
 * tier an operator set (admin.ts) is left alone.
 */
export async function applyTier(trx: Trx, userId: string, logger: Logger): Promise<Tier> {
  const customer = await lockCustomer(trx, userId);
  if (customer.tier_source === "admin") return customer.tier;
  const subs = await trx.selectFrom("billing_subscriptions").select("status").where("user_id", "=", userId).execute();
  const tier: Tier = subs.some((s) => PREMIUM_STATUSES.has(s.status)) ? "premium" : "free";
  if (tier !== customer.tier) {
    await trx.updateTable("billing_customers").set({ tier, updated_at: new Date() }).where("user_id", "=", userId).execute();
    if (tier === "free") await enqueueEvents(trx, [newEvent(SubscriptionCancelledSchema, { userId, plan: PLAN })]);
    logger.info({ userId, tier }, "tier changed");
  }
  return tier;
}

export interface WebhookDeps {
  db: Db;
  stripe: Stripe;
  webhookSecret: string;
  toleranceSeconds: number;
  logger: Logger;
}

/**
 * Verifies the signature over the raw bytes (and the timestamp's age), then applies the
 * event once: its id is stored in the same transaction as its effects, so a redelivered
 * or replayed event changes nothing.
 */
export async function handleWebhook(deps: WebhookDeps, payload: Uint8Array, signature: string): Promise<{ applied: boolean; type: string }> {
  let event: Stripe.Event;
  try {
    event = deps.stripe.webhooks.constructEvent(Buffer.from(payload), signature, deps.webhookSecret, deps.toleranceSeconds);
  } catch (error) {
    deps.logger.warn({ err: error }, "stripe webhook refused");
    throw new AppError("unauthenticated", "Invalid Stripe webhook signature");
  }
  const applied = await deps.db.transaction().execute(async (trx) => {
    const claimed = await trx
      .insertInto("billing_stripe_events")
      .values({ event_id: event.id, type: event.type })
      .onConflict((oc) => oc.column("event_id").doNothing())
      .returning("event_id")
      .executeTakeFirst();
    if (!claimed) return false;
    await applyEvent(trx, event.type, event.data.object as unknown, deps.logger);
    return true;
  });
  return { applied, type: event.type };
}

async function applyEvent(trx: Trx, type: string, object: unknown, logger: Logger): Promise<void> {
  switch (type) {
    case "checkout.session.completed": {
      const session = object as CheckoutSessionObject;
      const userId = session.client_reference_id || session.metadata?.user_id || (await userByCustomer(trx, idOf(session.customer)));
      if (!userId) {
        logger.warn({ session: session.id }, "checkout session without a user; ignored");
        return;
      }
      const customer = await lockCustomer(trx, userId);
      const customerId = idOf(session.customer);
      await trx
        .updateTable("billing_customers")
        .set({
          tier: "premium",
          tier_source: "stripe",
          updated_at: new Date(),
          ...(customerId ? { stripe_customer_id: customerId } : {}),
          ...(session.customer_email && !customer.email ? { email: session.customer_email } : {}),
        })
        .where("user_id", "=", userId)
        .execute();
      const subscriptionId = idOf(session.subscription);
      if (subscriptionId && customerId) {
        await storeSubscription(trx, userId, { id: subscriptionId, customer: customerId, status: "active" });
      }
      const amount = session.amount_total ?? 0;
      const currency = (session.currency ?? "").toUpperCase();
      if (Number.isInteger(amount) && amount > 0 && /^[A-Z]{3}$/.test(currency)) {
        await enqueueEvents(trx, [
          newEvent(SubscriptionPurchasedSchema, { userId, amountCents: BigInt(amount), currency, planType: PLAN }),
        ]);
      } else {
        logger.warn({ session: session.id, amount, currency }, "checkout session without a positive amount; no SubscriptionPurchased");
      }
      logger.info({ userId, session: session.id }, "premium purchased");
      return;
    }
    case "customer.subscription.created":
    case "customer.subscription.updated":
    case "customer.subscription.deleted": {
      const sub = object as SubscriptionObject;
      const userId = await userByCustomer(trx, idOf(sub.customer), sub.metadata);
      if (!userId) {
        logger.warn({ subscription: sub.id }, "subscription of an unknown customer; ignored");
        return;
      }
      await lockCustomer(trx, userId);
      await storeSubscription(trx, userId, type === "customer.subscription.deleted" ? { ...sub, status: "canceled" } : sub);
      await applyTier(trx, userId, logger);
      return;
    }
    case "invoice.payment_failed": {
      const invoice = object as InvoiceObject;
      const customerId = idOf(invoice.customer);
      const userId = await userByCustomer(trx, customerId);
      if (!userId) {
        logger.warn({ invoice: invoice.id }, "failed invoice of an unknown customer; ignored");
        return;
      }
      await lockCustomer(trx, userId);
      const subscriptionId = idOf(invoice.subscription) ?? idOf(invoice.parent?.subscription_details?.subscription);
      // Until a later invoice is paid (customer.subscription.updated → active) the user is free.
      let query = trx.updateTable("billing_subscriptions").set({ status: "past_due", updated_at: new Date() }).where("user_id", "=", userId);
      query = subscriptionId ? query.where("stripe_subscription_id", "=", subscriptionId) : query.where("status", "in", ["active", "trialing"]);
      await query.execute();
      await applyTier(trx, userId, logger);
      return;
    }
    default:
      return;
  }
}
