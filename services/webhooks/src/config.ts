import { env } from "@transcribe/platform";
import { z } from "zod";

export const webhooksConfigSchema = z.object({
  /**
   * Comma-separated CIDRs webhook targets may reach although private or loopback (an
   * intranet receiver; tests allow 127.0.0.0/8). Empty: only public addresses.
   */
  WEBHOOKS_ALLOW_CIDRS: z
    .string()
    .default("")
    .transform((value) => value.split(",").map((s) => s.trim()).filter((s) => s.length > 0)),
  /** Deadline for one delivery attempt (connect, send, answer). */
  WEBHOOK_TIMEOUT_MS: env.positiveInt(10_000),
  /** The first retry waits this long; each later one twice as long (capped at an hour). */
  WEBHOOK_RETRY_BASE_SECONDS: env.positiveInt(30),
  /** How long a delivery is retried before it is marked failed. */
  WEBHOOK_RETRY_WINDOW_SECONDS: env.positiveInt(86_400),
  /** How often the delivery worker looks for due deliveries when nothing woke it. */
  WEBHOOK_POLL_MS: env.positiveInt(1_000),
  WEBHOOK_MAX_ENDPOINTS_PER_USER: env.positiveInt(10),
});

export type WebhooksConfig = z.infer<typeof webhooksConfigSchema>;
