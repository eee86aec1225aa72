// What the plan screens say, worked out from the server's numbers; no I/O here.
import type { Subscription, TrialLimits } from "../../lib/api/generated/zod.gen";

export interface TrialSummary {
  premium: boolean;
  used: number;
  limit: number;
  remaining: number;
  /** 0–100, for the bar; 100 once the limit is reached (or passed: usage settles after the fact). */
  percent: number;
  atLimit: boolean;
}

export function trialSummary({ usedTotal, totalLimit, tier }: TrialLimits): TrialSummary {
  const remaining = Math.max(0, totalLimit - usedTotal);
  const percent = totalLimit > 0 ? Math.min(100, Math.round((usedTotal / totalLimit) * 100)) : 100;
  return { premium: tier === "premium", used: usedTotal, limit: totalLimit, remaining, percent, atLimit: tier === "free" && remaining === 0 };
}

export const minutes = (n: number) => `${n.toLocaleString("en")} ${n === 1 ? "minute" : "minutes"}`;

export const PAYMENTS_OFF_NOTE =
  "Payments are off on this server, so there is nothing to buy here: your administrator decides who has the premium plan.";

const STATUS_LABELS: Record<Subscription["status"], string> = {
  none: "No subscription",
  active: "Active",
  trialing: "Trial",
  past_due: "Payment overdue",
  canceled: "Cancelled",
  unpaid: "Unpaid",
};

export function subscriptionStatusLabel(subscription: Subscription): string {
  return STATUS_LABELS[subscription.status];
}

/** A subscription still running that Stripe will end at the period's end unless restored. */
export function isCancelling(subscription: Subscription): boolean {
  return subscription.cancelAtPeriodEnd && (subscription.status === "active" || subscription.status === "trialing");
}

/** Checkout makes sense only for a free user on a server that takes payments (and whose tier an admin did not set). */
export function canUpgrade(subscription: Subscription): boolean {
  return subscription.paymentsEnabled && subscription.tier === "free" && !subscription.tierSetByAdmin;
}
