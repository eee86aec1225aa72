// Plan, usage and payments (docs/requirements.md "Entities", "Calls"; docs/api.md "Billing"): thin calls through the
// API clients with their zod schemas, plus the query keys the screens share.
import { api, authApi } from "./index";
import { zBillingPortalSession, zCheckoutSession, zSubscription, zSubscriptionRestore, zTrialLimits, zUsageStats } from "./generated/zod.gen";

export const billingQueryKeys = {
  all: ["billing"] as const,
  trialLimits: ["billing", "trial-limits"] as const,
  usageStats: ["billing", "usage-stats"] as const,
  subscription: ["billing", "subscription"] as const,
};

/** The error code the server gives a transcription refused by the free tier's limit (HTTP 402). */
export const TRIAL_LIMIT_ERROR_CODE = "trial_limit_exceeded";

export function getTrialLimits(signal?: AbortSignal) {
  return api.request({ path: "/trial-limits", schema: zTrialLimits, signal });
}

export function getUsageStats(signal?: AbortSignal) {
  return api.request({ path: "/usage-stats", schema: zUsageStats, signal });
}

export function getSubscription(signal?: AbortSignal) {
  return api.request({ path: "/billing/subscription", schema: zSubscription, signal });
}

export function startCheckout() {
  return api.request({ method: "POST", path: "/billing/checkout", schema: zCheckoutSession });
}

export function openBillingPortal() {
  return api.request({ method: "POST", path: "/billing/portal", schema: zBillingPortalSession });
}

/** The spec's POST /auth/subscription/restore (answered by the BFF, not better-auth). */
export function restoreSubscription() {
  return authApi.request({ method: "POST", path: "/subscription/restore", schema: zSubscriptionRestore });
}
