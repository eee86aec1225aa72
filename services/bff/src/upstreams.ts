import { createServiceClient } from "@transcribe/platform";
import { AuthService } from "@transcribe/proto/auth/v1/auth";
import { HealthService } from "@transcribe/proto/health/v1/health";
import type { BffConfig } from "./config.js";

/** The services the BFF depends on, as health reports them. */
export const upstreamNames = [
  "auth",
  "media",
  "transcription",
  "transcription-worker",
  "billing",
  "export",
  "blog",
  "notifier",
  "webhooks",
  "transcription-live",
] as const;
export type UpstreamName = (typeof upstreamNames)[number];

export function upstreamUrls(config: BffConfig): Record<UpstreamName, string> {
  return {
    auth: config.AUTH_URL,
    media: config.MEDIA_URL,
    transcription: config.TRANSCRIPTION_URL,
    "transcription-worker": config.TRANSCRIPTION_WORKER_URL,
    billing: config.BILLING_URL,
    export: config.EXPORT_URL,
    blog: config.BLOG_URL,
    notifier: config.NOTIFIER_URL,
    webhooks: config.WEBHOOKS_URL,
    "transcription-live": config.TRANSCRIPTION_LIVE_URL,
  };
}

export function createHealthClients(urls: Record<UpstreamName, string>, timeoutMs: number) {
  return upstreamNames.map((name) => ({
    name,
    client: createServiceClient(HealthService, urls[name], { timeoutMs }),
  }));
}
export type HealthClients = ReturnType<typeof createHealthClients>;

/** AuthService: GetSession on every authenticated /api/v1 request. */
export function createAuthClient(urls: Record<UpstreamName, string>, timeoutMs: number) {
  return createServiceClient(AuthService, urls.auth, { timeoutMs });
}
