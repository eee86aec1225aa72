import type { FastifyInstance, FastifyRequest } from "fastify";
import { sendApiError } from "./api-error.js";
import { sessionCookies } from "./session.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export const CROSS_SITE_MESSAGE = "Cross-site request refused";

export interface CrossSiteOptions {
  /** Origins the web app is served from (PUBLIC_BASE_URL, AUTH_TRUSTED_ORIGINS). */
  trustedOrigins: string[];
  /**
   * Route patterns whose caller is authorized by a signature, not by the cookie
   * (webhooks, signed storage URLs): the rule does not apply to them.
   */
  exemptRoutes: string[];
}

function originOf(value: string): string | undefined {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether an unsafe request that carries a session cookie may act with it. The browser's
 * own word comes first (Sec-Fetch-Site), then the Origin header, then the Referer; a
 * source counts as ours when it is a trusted origin or names the host the request was
 * sent to. A request with none of the three is not from a browser (scripts, the CLI,
 * tests): no browser made since 2020 sends an unsafe request without Origin, so it cannot
 * be a forged one. This is the rule of Go's net/http CrossOriginProtection, plus Referer.
 */
export function isSameOriginRequest(
  headers: { "sec-fetch-site"?: string | string[] | undefined; origin?: string | string[] | undefined; referer?: string | string[] | undefined },
  host: string,
  trusted: ReadonlySet<string>,
): boolean {
  const ours = (source: string | undefined) => {
    const origin = source === undefined ? undefined : originOf(source);
    if (!origin) return false;
    return trusted.has(origin) || new URL(origin).host === host.toLowerCase();
  };
  const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
  const fetchSite = one(headers["sec-fetch-site"]);
  const origin = one(headers.origin);
  const referer = one(headers.referer);
  if (fetchSite === "same-origin" || fetchSite === "none") return true;
  // same-site or cross-site: still fine from an origin the operator trusts (the Vite dev server).
  if (fetchSite !== undefined) return origin !== undefined ? ours(origin) : ours(referer);
  if (origin !== undefined) return ours(origin);
  if (referer !== undefined) return ours(referer);
  return true;
}

/**
 * Cross-site request forgery guard for the cookie session: any POST, PUT, PATCH or DELETE
 * that carries a better-auth cookie must come from our own pages, else
 * 403 {error: {code: 'permission_denied'}} before anything reads the body. SameSite=Lax
 * cookies already keep most cross-site requests cookie-less; this also stops sibling
 * subdomains and older browsers. Requests without a session cookie have nothing to forge
 * (the auth service checks sign-in origins itself).
 *
 * It looks at no path prefix: the router decodes percent-escapes (/%61pi/... is /api/...)
 * and the cookie is honoured on /v1/* as well, so any prefix test on the raw URL can be
 * walked around. Only the matched route decides an exemption (docs/security.md).
 */
export function crossSiteGuard(app: FastifyInstance, options: CrossSiteOptions): void {
  const trusted = new Set(options.trustedOrigins.map(originOf).filter((o): o is string => Boolean(o)));
  const exempt = new Set(options.exemptRoutes);
  app.addHook("onRequest", async (request: FastifyRequest, reply) => {
    if (SAFE_METHODS.has(request.method)) return;
    if (request.routeOptions.url && exempt.has(request.routeOptions.url)) return;
    if (!sessionCookies(request.headers.cookie)) return;
    if (isSameOriginRequest(request.headers, request.host, trusted)) return;
    request.log.warn({ origin: request.headers.origin, referer: request.headers.referer, fetchSite: request.headers["sec-fetch-site"] }, "cross-site request refused");
    return sendApiError(reply, 403, "permission_denied", CROSS_SITE_MESSAGE);
  });
}
