import path from "node:path";
import { commonConfigSchema, env } from "@transcribe/platform";
import { z } from "zod";

const serviceUrl = (port: number) => env.httpUrl().default(`http://127.0.0.1:${port}`);

export const bffConfigSchema = commonConfigSchema.extend({
  PORT: env.port(8080),
  AUTH_URL: serviceUrl(7001),
  MEDIA_URL: serviceUrl(7002),
  TRANSCRIPTION_URL: serviceUrl(7003),
  TRANSCRIPTION_WORKER_URL: serviceUrl(7004),
  BILLING_URL: serviceUrl(7005),
  EXPORT_URL: serviceUrl(7006),
  BLOG_URL: serviceUrl(7007),
  NOTIFIER_URL: serviceUrl(7008),
  /** The built SPA; the embedded launcher builds it on start. */
  WEB_DIST_DIR: z.string().default(path.resolve(import.meta.dirname, "../../../web/dist")),
  /** Deadline for one call to a service. */
  SERVICE_TIMEOUT_MS: env.positiveInt(10_000),
  /**
   * How long the BFF reuses one GetSession answer for the same session cookie. A revoked
   * session keeps working on /api/v1 for at most this long.
   */
  SESSION_CACHE_TTL_MS: z.coerce.number().int().nonnegative().default(5_000),
  /** Deadline for one health probe, so one hung service cannot stall /api/v1/health. */
  HEALTH_TIMEOUT_MS: env.positiveInt(2_000),
});

export type BffConfig = z.infer<typeof bffConfigSchema>;
