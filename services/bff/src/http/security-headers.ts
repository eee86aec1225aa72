import helmet from "@fastify/helmet";
import type { FastifyInstance } from "fastify";

export interface SecurityHeaderSettings {
  /** The product's browser-facing URL; https turns on HSTS and upgrade-insecure-requests. */
  publicBaseUrl: string;
  production: boolean;
  /** Origins besides our own the web app fetches from, uploads to and plays media from. */
  connectOrigins: string[];
  /** Origins the web app loads scripts from besides our own (PostHog's extensions). */
  scriptOrigins: string[];
}

/** A value as CSP wants it: an origin (scheme://host[:port]) or a `scheme://*.host` pattern; anything else is dropped. */
function sourceOf(value: string): string | undefined {
  const wildcard = /^(https?):\/\/\*\.([a-z0-9.-]+(?::\d+)?)$/i.exec(value.trim());
  if (wildcard) return `${wildcard[1]!.toLowerCase()}://*.${wildcard[2]!.toLowerCase()}`;
  try {
    const url = new URL(value.trim());
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

const unique = (values: Array<string | undefined>) => [...new Set(values.filter((v): v is string => Boolean(v)))];

/**
 * The web app's third-party hosts, from the same variables its build reads
 * (web/src/lib/analytics.ts, monitoring.ts), plus the S3 endpoint uploads and audio go to
 * in cluster mode and whatever the operator lists in CSP_CONNECT_ORIGINS.
 */
export function thirdPartyOrigins(config: {
  CSP_CONNECT_ORIGINS: string[];
  VITE_POSTHOG_KEY?: string | undefined;
  VITE_POSTHOG_HOST?: string | undefined;
  VITE_SENTRY_DSN?: string | undefined;
  S3_PUBLIC_ENDPOINT?: string | undefined;
  S3_ENDPOINT?: string | undefined;
}): { connect: string[]; script: string[] } {
  const posthog: string[] = [];
  if (config.VITE_POSTHOG_KEY) {
    const host = sourceOf(config.VITE_POSTHOG_HOST ?? "https://us.i.posthog.com");
    if (host) {
      posthog.push(host);
      // PostHog Cloud serves its lazily loaded scripts (surveys, recorder, remote config) from the region's assets host.
      const region = /^https:\/\/([a-z]+)\.i\.posthog\.com$/.exec(host)?.[1];
      if (region) posthog.push(`https://${region}-assets.i.posthog.com`);
    }
  }
  const sentry = config.VITE_SENTRY_DSN ? sourceOf(config.VITE_SENTRY_DSN) : undefined;
  const storage = sourceOf(config.S3_PUBLIC_ENDPOINT ?? config.S3_ENDPOINT ?? "");
  return {
    connect: unique([...posthog, sentry, storage, ...config.CSP_CONNECT_ORIGINS.map(sourceOf)]),
    script: unique(posthog),
  };
}

/** The Content-Security-Policy directives of every BFF response. */
export function contentSecurityDirectives(settings: SecurityHeaderSettings): Record<string, string[]> {
  const https = new URL(settings.publicBaseUrl).protocol === "https:";
  return {
    "default-src": ["'self'"],
    "base-uri": ["'self'"],
    // The built SPA has no inline script (web/index.html); the bundle is served from /assets.
    "script-src": ["'self'", ...settings.scriptOrigins],
    // Toasts (sonner) inject a <style> element at run time; style injection cannot run script.
    "style-src": ["'self'", "'unsafe-inline'"],
    // Avatars from sign-in providers and images in blog posts live on other https hosts.
    "img-src": ["'self'", "data:", "blob:", "https:"],
    // The upload form reads a file's duration through a blob: URL before uploading it.
    "media-src": ["'self'", "blob:", ...settings.connectOrigins],
    "connect-src": ["'self'", ...settings.connectOrigins],
    "font-src": ["'self'", "data:"],
    "worker-src": ["'self'", "blob:"],
    "object-src": ["'none'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
    // Over plain http (npm start on a laptop) upgrading would break every request.
    ...(https ? { "upgrade-insecure-requests": [] } : {}),
  };
}

/** Whether browsers are told to use https only: in production (ignored by browsers over http) or whenever the public URL is https. */
export function hstsEnabled(settings: Pick<SecurityHeaderSettings, "publicBaseUrl" | "production">): boolean {
  return settings.production || new URL(settings.publicBaseUrl).protocol === "https:";
}

/**
 * Security headers on every response of the BFF (SPA, API, proxied /auth and storage):
 * the CSP above, no framing, no MIME sniffing, HSTS outside development, and the referrer
 * trimmed to the origin when leaving the site (transcript ids stay in our URLs).
 */
export async function securityHeaders(app: FastifyInstance, settings: SecurityHeaderSettings): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: contentSecurityDirectives(settings) },
    // Without includeSubDomains: the product rarely owns its parent domain's other hosts.
    strictTransportSecurity: hstsEnabled(settings) ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    xFrameOptions: { action: "deny" },
    referrerPolicy: { policy: "strict-origin-when-cross-origin" },
    // The app embeds nothing cross-origin that would need CORP from others.
    crossOriginEmbedderPolicy: false,
  });
}
