import { isIP } from "node:net";
import path from "node:path";
import { commonConfigSchema, env } from "@transcribe/platform";
import { z } from "zod";

const serviceUrl = (port: number) => env.httpUrl().default(`http://127.0.0.1:${port}`);
const commaList = () =>
  z
    .string()
    .default("")
    .transform((value) => value.split(",").map((s) => s.trim()).filter((s) => s.length > 0));

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
  /** The live transcription worker (decision 0030). */
  TRANSCRIPTION_LIVE_URL: serviceUrl(7010),
  /** A live session (page or /v1/realtime) is stopped after this much audio; the live worker has its own limit too. */
  LIVE_MAX_SECONDS: env.positiveInt(3_600),
  /** Where live audio is written as it arrives, before it becomes a file (default: the system's temporary directory). */
  LIVE_SPOOL_DIR: env.optionalString(),
  /**
   * How long a live session whose client vanished (network lost, tab reloading, this BFF
   * restarted) waits for the client to resume it before it is saved (decision 0037).
   */
  LIVE_RESUME_SECONDS: env.positiveInt(30),
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
  /** POST /api/v1/image-proxy: largest image passed on, and the deadline for fetching it (all redirects included). */
  IMAGE_PROXY_MAX_BYTES: env.positiveInt(5 * 1024 * 1024),
  IMAGE_PROXY_TIMEOUT_MS: env.positiveInt(5_000),
  /** Comma-separated CIDRs the image proxy may reach although private (an intranet); empty by default. */
  IMAGE_PROXY_ALLOW_CIDRS: z
    .string()
    .default("")
    .transform((value) => value.split(",").map((s) => s.trim()).filter((s) => s.length > 0)),
  /** Support requests one user may send per hour, and contact messages per client address. */
  SUPPORT_RATE_LIMIT_PER_HOUR: env.positiveInt(5),
  CONTACT_RATE_LIMIT_PER_HOUR: env.positiveInt(5),
  /** Groq API key: when set, GET /api/v1/ai-greeting asks Groq's chat API for the greeting. */
  GROQ_API_KEY: z.string().min(1).optional(),
  GROQ_MODEL: z.string().min(1).default("llama-3.1-8b-instant"),
  /** Deadline for the Groq call; past it the template greeting is used. */
  AI_GREETING_TIMEOUT_MS: env.positiveInt(1_500),
  /**
   * The product's browser-facing URL (the same variable export and the launcher use). Unsafe
   * requests with a session cookie must come from it (http/csrf.ts); https turns on HSTS.
   */
  PUBLIC_BASE_URL: env.httpUrl().default("http://localhost:8080"),
  /** Further origins the web app is served from (the Vite dev server): the list the auth service trusts too. */
  AUTH_TRUSTED_ORIGINS: commaList(),
  /** Further origins the web app may fetch from, upload to and play media from (CSP connect-src, media-src). */
  CSP_CONNECT_ORIGINS: commaList(),
  /** The web build's analytics and error-reporting settings: when set here too, the CSP allows their hosts. */
  VITE_POSTHOG_KEY: env.optionalString(),
  VITE_POSTHOG_HOST: env.optionalHttpUrl(),
  VITE_SENTRY_DSN: env.optionalString(),
  /** The S3 endpoint browsers upload to and play from in cluster mode (media's variables); the CSP allows it. */
  S3_PUBLIC_ENDPOINT: env.optionalHttpUrl(),
  S3_ENDPOINT: env.optionalHttpUrl(),
  /**
   * POST /v1/audio/transcriptions and /translations: how long the request waits for the
   * result (upload checks included). Past it the answer is the use_async_api error naming
   * the transcription, which goes on in the background (docs/api.md).
   */
  OPENAI_SYNC_WAIT_SECONDS: env.positiveInt(300),
  /** POST /api/v1/jobs: how long it waits for media to check the file before answering 202. */
  API_MEDIA_WAIT_SECONDS: env.positiveInt(600),
  /** Largest file the developer API takes in one multipart request (media's MEDIA_MAX_FILE_BYTES still decides; keep them equal). */
  API_MAX_FILE_BYTES: env.positiveInt(100 * 1024 * 1024),
  /**
   * Multipart uploads (/v1/audio/*, /api/v1/jobs) one replica receives at once, and per
   * user: each may put API_MAX_FILE_BYTES in the temporary directory before it goes on to
   * storage, so total × API_MAX_FILE_BYTES must fit it (the chart's /tmp is 512Mi).
   */
  API_MAX_CONCURRENT_UPLOADS: env.positiveInt(4),
  API_MAX_CONCURRENT_UPLOADS_PER_USER: env.positiveInt(2),
  /** The webhooks service (user webhooks: endpoints and deliveries). */
  WEBHOOKS_URL: serviceUrl(7009),
  /**
   * Administrators: comma-separated e-mail addresses (verified sign-ins only). They download
   * and remove the local speech models (POST/DELETE /api/v1/models/{id}...). Empty: nobody.
   */
  ADMIN_EMAILS: commaList(),
  /**
   * The proxies in front of the BFF (the ingress controller): comma-separated addresses or
   * CIDRs. A request from one of them has its client address taken from X-Forwarded-For
   * (the rightmost address that is not itself a trusted proxy); from anyone else the
   * header is ignored and the socket's address counts. Empty: the BFF is the edge. Rate
   * limits (contact form, sign-in attempts at the auth service) are kept per this address.
   */
  TRUSTED_PROXIES: commaList().refine(
    (list) => list.every((entry) => isIP(entry.split("/")[0]!) !== 0 && (!entry.includes("/") || /^\d{1,3}$/.test(entry.split("/")[1]!))),
    "TRUSTED_PROXIES: each entry must be an address or a CIDR such as 10.0.0.0/8",
  ),
});

export type BffConfig = z.infer<typeof bffConfigSchema>;
