import type { Client } from "@connectrpc/connect";
import { enumNames } from "@transcribe/platform";
import { type BillingService, type SubscriptionStatus, SubscriptionStatusSchema, type Tier, TierSchema } from "@transcribe/proto/billing/v1/billing";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { security } from "../http/openapi.js";
import { signedInUserId } from "../http/signed-in-user.js";

const tiers = enumNames<Tier>(TierSchema);
const subscriptionStatuses = enumNames<SubscriptionStatus>(SubscriptionStatusSchema);
/** The API's names (the proto enum's); an unset tier reads as free, an unset status as none. */
const tierName = (tier: Tier) => (tiers.name(tier) ?? "free") as "free" | "premium";
const statusName = (status: SubscriptionStatus) => (subscriptionStatuses.name(status) ?? "none") as "none" | "active" | "trialing" | "past_due" | "canceled" | "unpaid";

const count = z.number().int().min(0);
export const trialLimitsSchema = z
  .object({
    used_total: count.describe("Minutes of audio transcribed so far (each file rounded up to a whole minute)"),
    total_limit: count.describe("The free tier's total limit, in minutes"),
    tier: z.enum(["free", "premium"]),
  })
  .meta({ id: "TrialLimits", description: "Minutes used and the free limit" });
const usagePeriodSchema = z.object({ file_count: count, total_minutes: count });
export const usageStatsSchema = z
  .object({ this_month: usagePeriodSchema.describe("Calendar month, UTC"), all_time: usagePeriodSchema })
  .meta({ id: "UsageStats", description: "Transcribed files and minutes" });
export const checkoutSchema = z.object({ checkout_url: z.string(), session_id: z.string() }).meta({ id: "CheckoutSession", description: "Open checkout_url in the browser" });
export const portalSchema = z.object({ portal_url: z.string() }).meta({ id: "BillingPortalSession", description: "Open portal_url in the browser" });
export const restoreSchema = z
  .object({
    status: z.enum(["none", "active", "trialing", "past_due", "canceled", "unpaid"]),
    tier: z.enum(["free", "premium"]),
  })
  .meta({ id: "SubscriptionRestore", description: "The subscription after the restore" });

/**
 * The product's own origin as the browser sees it, for Stripe's return URLs: the Origin
 * header of the (same-origin) POST when it names this host, else this request's host.
 */
function originOf(request: FastifyRequest): string {
  const origin = request.headers.origin;
  if (origin) {
    try {
      const url = new URL(origin);
      if (url.host === request.host) return url.origin;
    } catch {
      // ignore a malformed Origin
    }
  }
  return `${request.protocol}://${request.host}`;
}

export const subscriptionSchema = z
  .object({
    payments_enabled: z.boolean().describe("False when this server has no Stripe keys: checkout, portal and restore answer 409"),
    tier: z.enum(["free", "premium"]),
    tier_set_by_admin: z.boolean(),
    has_billing_account: z.boolean().describe("The billing portal can open"),
    status: restoreSchema.shape.status,
    cancel_at_period_end: z.boolean(),
    current_period_end: z.string().nullable().describe("ISO 8601; when a cancelling subscription ends"),
  })
  .meta({ id: "Subscription", description: "The plan as stored" });

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 409: apiErrorSchema, 503: apiErrorSchema };

/**
 * Trial limits, usage, Stripe checkout/portal/restore (docs/requirements.md "Entities", "Calls") and the Stripe webhook.
 * The spec's POST /auth/subscription/restore sits in the auth proxy's space; the product
 * exposes it as POST /api/v1/billing/restore instead (decision 0013).
 */
export const billingRoutes: FastifyPluginAsyncZod<{ client: Client<typeof BillingService> }> = async (app, { client }) => {
  app.get(
    "/api/v1/trial-limits",
    { schema: { tags: ["billing"], operationId: "getTrialLimits", summary: "Free-tier usage, limit and tier", security: security.session, response: { 200: trialLimitsSchema, ...errors } } },
    async (request) => {
      const result = await client.getTrialLimits({ userId: signedInUserId(request) });
      return { used_total: result.usedTotal, total_limit: result.totalLimit, tier: tierName(result.tier) };
    },
  );

  app.get(
    "/api/v1/usage-stats",
    { schema: { tags: ["billing"], operationId: "getUsageStats", summary: "Transcribed files and minutes: this month (UTC) and all time", security: security.session, response: { 200: usageStatsSchema, ...errors } } },
    async (request) => {
      const result = await client.getUsageStats({ userId: signedInUserId(request) });
      const period = (p: { fileCount: number; totalMinutes: number } | undefined) => ({ file_count: p?.fileCount ?? 0, total_minutes: p?.totalMinutes ?? 0 });
      return { this_month: period(result.thisMonth), all_time: period(result.allTime) };
    },
  );

  app.post(
    "/api/v1/billing/checkout",
    { schema: { tags: ["billing"], operationId: "createCheckoutSession", summary: "Start a Stripe Checkout for the premium plan", security: security.session, response: { 200: checkoutSchema, ...errors } } },
    async (request) => {
      const origin = originOf(request);
      const result = await client.createCheckoutSession({
        userId: signedInUserId(request),
        email: request.user?.email ?? "",
        successUrl: `${origin}/dashboard?subscription=success`,
        cancelUrl: `${origin}/dashboard`,
      });
      return { checkout_url: result.checkoutUrl, session_id: result.sessionId };
    },
  );

  app.post(
    "/api/v1/billing/portal",
    { schema: { tags: ["billing"], operationId: "createBillingPortalSession", summary: "Open the Stripe billing portal", security: security.session, response: { 200: portalSchema, ...errors } } },
    async (request) => {
      const result = await client.createBillingPortalSession({ userId: signedInUserId(request), returnUrl: `${originOf(request)}/account` });
      return { portal_url: result.portalUrl };
    },
  );

  app.get(
    "/api/v1/billing/subscription",
    { schema: { tags: ["billing"], operationId: "getSubscription", summary: "The user's plan and whether payments are on", security: security.session, response: { 200: subscriptionSchema, ...errors } } },
    async (request) => {
      const result = await client.getSubscription({ userId: signedInUserId(request) });
      return {
        payments_enabled: result.paymentsEnabled,
        tier: tierName(result.tier),
        tier_set_by_admin: result.tierSetByAdmin,
        has_billing_account: result.hasBillingAccount,
        status: statusName(result.status),
        cancel_at_period_end: result.cancelAtPeriodEnd,
        current_period_end: result.currentPeriodEnd > 0n ? new Date(Number(result.currentPeriodEnd) * 1000).toISOString() : null,
      };
    },
  );

  const restore = async (request: FastifyRequest) => {
    const result = await client.restoreSubscription({ userId: signedInUserId(request), email: request.user?.email ?? "" });
    return { status: statusName(result.status), tier: tierName(result.tier) };
  };
  const restoreRoute = { tags: ["billing"], security: security.session, response: { 200: restoreSchema, ...errors } };
  app.post("/api/v1/billing/restore", { schema: { ...restoreRoute, operationId: "restoreSubscription", summary: "Restore a subscription scheduled to cancel" } }, restore);
  // The spec's path (its payment plugin's POST /subscription/restore under /auth); the
  // session hook covers it like /api/v1 (http/session.ts).
  app.post("/auth/subscription/restore", { schema: { ...restoreRoute, operationId: "restoreSubscriptionAuthPath", summary: "Restore a subscription scheduled to cancel (the spec's path)" } }, restore);

  // The webhook keeps the body's raw bytes: Stripe signs them, so no JSON parsing here.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
    scope.post(
      "/api/v1/billing/webhook",
      {
        config: { public: true },
        schema: {
          tags: ["billing"],
          operationId: "handleStripeWebhook",
          summary: "Stripe webhook (signed)",
          description: "Stripe's event, verified with the Stripe-Signature header over the raw body.",
          security: security.none,
          body: z.unknown().describe("The Stripe event, as Stripe sent it"),
          response: { 200: z.object({ received: z.boolean() }).meta({ id: "StripeWebhookResponse", description: "The event was accepted" }), 400: apiErrorSchema, 401: apiErrorSchema, 409: apiErrorSchema, 503: apiErrorSchema } },
      },
      async (request) => {
        const body = request.body;
        const payload = Buffer.isBuffer(body) ? body : Buffer.alloc(0);
        const signature = request.headers["stripe-signature"];
        const result = await client.handleStripeWebhook({ payload, signature: typeof signature === "string" ? signature : "" });
        return { received: result.received };
      },
    );
  });
};
