import { env } from "@transcribe/platform";
import { z } from "zod";
import { parseSecretKeys } from "./secret-box.js";

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
  /**
   * Keys that encrypt endpoint signing secrets at rest (AES-256-GCM): `id:base64key,...`,
   * each 32 bytes (openssl rand -base64 32). The first seals; every listed one opens; on
   * start every row is moved to the first (docs/decisions/0032-webhook-secrets-at-rest.md).
   * Required in production; elsewhere a key for this process only is made when it is unset.
   */
  WEBHOOK_SECRET_KEYS: z
    .string()
    .default("")
    .transform((value, context) => {
      try {
        return parseSecretKeys(value);
      } catch (error) {
        context.addIssue({ code: "custom", message: (error as Error).message });
        return z.NEVER;
      }
    }),
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
});

export type WebhooksConfig = z.infer<typeof webhooksConfigSchema>;
