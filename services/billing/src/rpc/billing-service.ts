import { AppError, enumNames, type Logger } from "@transcribe/platform";
import { type BillingService, SubscriptionStatus, SubscriptionStatusSchema, Tier, TierSchema } from "@transcribe/proto/billing/v1/billing";
import type { ServiceImpl } from "@connectrpc/connect";
import type Stripe from "stripe";
import { type BillingConfig, paymentsEnabled } from "../config.js";
import type { Db } from "../db/schema.js";
import { applyTier, handleWebhook, PAYMENTS_OFF, storeSubscription } from "../domain/stripe.js";
import { checkQuota, lockCustomer, settledUsage, startOfUtcMonth, tierOf } from "../domain/usage.js";

export interface BillingServiceDeps {
  db: Db;
  config: BillingConfig;
  /** Absent when STRIPE_SECRET_KEY is not set: payments are off. */
  stripe: Stripe | undefined;
  logger: Logger;
  now?: () => Date;
}

function requireUser(userId: string): string {
  if (!userId) throw new AppError("invalid_argument", "user_id is required", { field: "user_id" });
  return userId;
}

const tiers = enumNames<Tier>(TierSchema);
const toTier = (tier: "free" | "premium") => tiers.value(tier) ?? Tier.FREE;
// Stripe's subscription statuses are the proto enum's names; one it adds later reads as unspecified.
const subscriptionStatuses = enumNames<SubscriptionStatus>(SubscriptionStatusSchema);

function requireAbsoluteUrl(value: string, field: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return value;
  } catch {
    // fall through
  }
  throw new AppError("invalid_argument", `${field} must be an absolute http(s) URL`, { field });
}

export function billingServiceImpl(deps: BillingServiceDeps): ServiceImpl<typeof BillingService> {
  const { db, config, logger } = deps;
  const now = deps.now ?? (() => new Date());

  function payments(): { stripe: Stripe; priceId: string } {
    if (!deps.stripe || !config.STRIPE_PRICE_ID) throw new AppError("failed_precondition", PAYMENTS_OFF);
    return { stripe: deps.stripe, priceId: config.STRIPE_PRICE_ID };
  }

  /** The user's Stripe customer: stored, or found by e-mail (when `create`, made). */
  async function stripeCustomer(stripe: Stripe, userId: string, email: string, create: boolean): Promise<string | undefined> {
    const stored = await db.selectFrom("billing_customers").select("stripe_customer_id").where("user_id", "=", userId).executeTakeFirst();
    if (stored?.stripe_customer_id) return stored.stripe_customer_id;
    let customerId: string | undefined;
    if (email) {
      const found = (await stripe.customers.list({ email, limit: 1 })).data[0]?.id;
      // An address can move between accounts (an e-mail change, then a sign-up with the
      // old one): a customer already linked to another user is not this user's.
      const owner = found
        ? await db.selectFrom("billing_customers").select("user_id").where("stripe_customer_id", "=", found).executeTakeFirst()
        : undefined;
      if (found && (!owner || owner.user_id === userId)) customerId = found;
    }
    if (!customerId && create) {
      // The idempotency key makes two concurrent first checkouts share one customer.
      const created = await stripe.customers.create(
        { ...(email ? { email } : {}), metadata: { user_id: userId } },
        { idempotencyKey: `billing-customer-${userId}` },
      );
      customerId = created.id;
    }
    if (customerId) {
      await db.transaction().execute(async (trx) => {
        await lockCustomer(trx, userId);
        await trx
          .updateTable("billing_customers")
          .set({ stripe_customer_id: customerId, ...(email ? { email } : {}), updated_at: new Date() })
          .where("user_id", "=", userId)
          .where("stripe_customer_id", "is", null)
          .execute();
      });
    }
    return customerId;
  }

  return {
    async getSubscription(request) {
      const userId = requireUser(request.userId);
      const [customer, subscriptions] = await Promise.all([
        db.selectFrom("billing_customers").select(["tier", "tier_source", "stripe_customer_id"]).where("user_id", "=", userId).executeTakeFirst(),
        db
          .selectFrom("billing_subscriptions")
          .select(["status", "cancel_at_period_end", "current_period_end", "updated_at"])
          .where("user_id", "=", userId)
          .orderBy("updated_at", "desc")
          .execute(),
      ]);
      // A live subscription says more about the plan than an older ended one.
      const subscription = subscriptions.find((s) => s.status !== "canceled" && s.status !== "incomplete_expired") ?? subscriptions[0];
      return {
        paymentsEnabled: paymentsEnabled(config),
        tier: toTier(customer?.tier ?? "free"),
        tierSetByAdmin: customer?.tier_source === "admin",
        hasBillingAccount: Boolean(customer?.stripe_customer_id),
        status: subscription ? (subscriptionStatuses.value(subscription.status) ?? SubscriptionStatus.UNSPECIFIED) : SubscriptionStatus.NONE,
        cancelAtPeriodEnd: subscription?.cancel_at_period_end ?? false,
        currentPeriodEnd: subscription?.current_period_end ? BigInt(Math.floor(subscription.current_period_end.getTime() / 1000)) : 0n,
      };
    },

    async getTrialLimits(request) {
      const userId = requireUser(request.userId);
      const [usage, tier] = await Promise.all([settledUsage(db, userId), tierOf(db, userId)]);
      return { usedTotal: usage.totalMinutes, totalLimit: config.FREE_TRIAL_MINUTES, tier: toTier(tier) };
    },

    async getUsageStats(request) {
      const userId = requireUser(request.userId);
      const [thisMonth, allTime] = await Promise.all([settledUsage(db, userId, startOfUtcMonth(now())), settledUsage(db, userId)]);
      return { thisMonth, allTime };
    },

    async checkQuota(request) {
      const userId = requireUser(request.userId);
      if (!(request.audioSeconds > 0)) throw new AppError("invalid_argument", "audio_seconds must be positive", { field: "audio_seconds" });
      const answer = await checkQuota(
        db,
        { userId, audioSeconds: request.audioSeconds, jobId: request.jobId || undefined },
        { freeMinutes: config.FREE_TRIAL_MINUTES, reservationTtlHours: config.QUOTA_RESERVATION_TTL_HOURS },
      );
      if (!answer.allowed) logger.info({ userId, ...answer }, "quota refused");
      return answer;
    },

    async createCheckoutSession(request) {
      const userId = requireUser(request.userId);
      const { stripe, priceId } = payments();
      const successUrl = requireAbsoluteUrl(request.successUrl, "success_url");
      const cancelUrl = requireAbsoluteUrl(request.cancelUrl, "cancel_url");
      if ((await tierOf(db, userId)) === "premium") throw new AppError("failed_precondition", "You already have the premium plan");
      const customer = await stripeCustomer(stripe, userId, request.email, true);
      const session = await stripe.checkout.sessions.create({
        mode: "subscription",
        line_items: [{ price: priceId, quantity: 1 }],
        ...(customer ? { customer } : {}),
        client_reference_id: userId,
        metadata: { user_id: userId },
        subscription_data: { metadata: { user_id: userId } },
        success_url: successUrl,
        cancel_url: cancelUrl,
      });
      if (!session.url) throw new AppError("unavailable", "Stripe returned no checkout URL");
      return { checkoutUrl: session.url, sessionId: session.id };
    },

    async createBillingPortalSession(request) {
      const userId = requireUser(request.userId);
      const { stripe } = payments();
      const returnUrl = requireAbsoluteUrl(request.returnUrl, "return_url");
      const stored = await db.selectFrom("billing_customers").select("stripe_customer_id").where("user_id", "=", userId).executeTakeFirst();
      if (!stored?.stripe_customer_id) throw new AppError("failed_precondition", "You have no billing account yet: upgrade to premium first");
      const portal = await stripe.billingPortal.sessions.create({ customer: stored.stripe_customer_id, return_url: returnUrl });
      return { portalUrl: portal.url };
    },

    async handleStripeWebhook(request) {
      if (!deps.stripe || !config.STRIPE_WEBHOOK_SECRET) throw new AppError("failed_precondition", PAYMENTS_OFF);
      if (!request.signature) throw new AppError("unauthenticated", "Missing Stripe-Signature header");
      const result = await handleWebhook(
        { db, stripe: deps.stripe, webhookSecret: config.STRIPE_WEBHOOK_SECRET, toleranceSeconds: config.STRIPE_WEBHOOK_TOLERANCE_SECONDS, logger },
        request.payload,
        request.signature,
      );
      logger.info(result, "stripe webhook");
      return { received: true };
    },

    async restoreSubscription(request) {
      const userId = requireUser(request.userId);
      const { stripe } = payments();
      const customer = await stripeCustomer(stripe, userId, request.email, false);
      if (!customer) return { status: SubscriptionStatus.NONE, tier: toTier(await tierOf(db, userId)) };
      const list = await stripe.subscriptions.list({ customer, status: "all", limit: 10 });
      const live = list.data.filter((s) => s.status !== "canceled" && s.status !== "incomplete_expired");
      let sub = live[0] ?? list.data[0];
      if (!sub) return { status: SubscriptionStatus.NONE, tier: toTier(await tierOf(db, userId)) };
      if (sub.cancel_at_period_end && sub.status !== "canceled") {
        sub = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: false });
      }
      const restored = sub;
      const tier = await db.transaction().execute(async (trx) => {
        await lockCustomer(trx, userId);
        await storeSubscription(trx, userId, restored as unknown as Parameters<typeof storeSubscription>[2]);
        return applyTier(trx, userId, logger);
      });
      return { status: subscriptionStatuses.value(restored.status) ?? SubscriptionStatus.UNSPECIFIED, tier: toTier(tier) };
    },
  };
}
