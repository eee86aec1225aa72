import { env } from "@transcribe/platform";
import { z } from "zod";

export const blogConfigSchema = z.object({
  /** Secret for the webhook's HMAC-SHA256; unset: every webhook delivery is refused. */
  BLOG_WEBHOOK_SECRET: z.string().min(16, "must be at least 16 characters").optional(),
  /** How far a delivery's timestamp may be from now (seconds, either way). */
  BLOG_WEBHOOK_MAX_AGE_SECONDS: env.positiveInt(300),
});
export type BlogConfig = z.infer<typeof blogConfigSchema>;
