import { env } from "@transcribe/platform";
import { z } from "zod";

const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

/** The billing service's own variables (the common ones come from runService). */
export const billingConfigSchema = z.object({
  /** The free tier's total limit, in minutes of audio (each file rounded up to a whole minute). */
  FREE_TRIAL_MINUTES: z.coerce.number().int().min(0).default(60),
  /**
   * A reservation made by CheckQuota for a job that never reports TranscriptionCompleted
   * (its creation failed after the check) stops counting after this many hours.
   */
  QUOTA_RESERVATION_TTL_HOURS: env.positiveInt(24),
  /** Stripe secret key; without it payments are off (checkout, portal, webhook, restore answer FAILED_PRECONDITION). */
  STRIPE_SECRET_KEY: optional(z.string().min(1)),
  /** Signing secret of the webhook endpoint (whsec_…); without it webhooks are refused. */
  STRIPE_WEBHOOK_SECRET: optional(z.string().min(1)),
  /** The recurring Price of the premium plan. */
  STRIPE_PRICE_ID: optional(z.string().min(1)),
  /** Another Stripe API base URL, e.g. http://127.0.0.1:12111 for stripe-mock in tests. */
  STRIPE_API_BASE: optional(env.httpUrl()),
  /** Webhook timestamps older than this are refused (replay protection), in seconds. */
  STRIPE_WEBHOOK_TOLERANCE_SECONDS: env.positiveInt(300),
});
export type BillingConfig = z.infer<typeof billingConfigSchema>;

/** Whether the Stripe settings needed for checkout are all present. */
export function paymentsEnabled(config: Pick<BillingConfig, "STRIPE_SECRET_KEY" | "STRIPE_PRICE_ID">): boolean {
  return Boolean(config.STRIPE_SECRET_KEY && config.STRIPE_PRICE_ID);
}
