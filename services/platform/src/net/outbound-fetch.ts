import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { AppError } from "../errors.js";
import { type AddressPolicy, bareHost, ForbiddenAddressError, guardedLookup, type HostResolver, resolveAllowed, systemResolver } from "./address-guard.js";

/**
 * A GET to a URL a user named (the BFF's image proxy, media's URL import): http(s) only, no
 * credentials in the URL, every address of the host allowed by the policy before any request,
 * connections resolved through the address guard (no DNS rebinding between check and
 * connect), a fresh connection per hop, redirects followed by hand with every hop checked like
 * the first. Refusals are AppErrors (invalid_argument) in the caller's words.
 */
export interface OutboundMessages {
  invalidUrl: string;
  scheme: string;
  credentials: string;
  forbidden: string;
  unresolvable: (host: string) => string;
  tooManyRedirects: string;
  status: (status: number) => string;
  /** Why the fetch failed, when the caller says it (a network error's message, a bad redirect). */
  failed: (why: string) => string;
  timeout: string;
}

export interface OutboundOptions {
  policy: AddressPolicy;
  resolver?: HostResolver;
  messages: OutboundMessages;
  maxRedirects: number;
  /** The whole fetch, body included: the returned signal aborts then. */
  timeoutMs: number;
  /** A socket with nothing to say for this long fails the request. */
  idleTimeoutMs?: number;
  headers: Record<string, string>;
}

const invalid = (message: string) => new AppError("invalid_argument", message);

/** Scheme, credentials and the host's addresses (every one must be allowed), before any request. */
export async function checkOutboundUrl(raw: string, options: Pick<OutboundOptions, "policy" | "resolver" | "messages">): Promise<URL> {
  const { messages } = options;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid(messages.invalidUrl);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(messages.scheme);
  if (url.username || url.password) throw invalid(messages.credentials);
  const host = bareHost(url);
  try {
    await resolveAllowed(host, options.policy, options.resolver ?? systemResolver);
  } catch (error) {
    throw invalid(error instanceof ForbiddenAddressError ? messages.forbidden : messages.unresolvable(host));
  }
  return url;
}

/**
 * The final answer (2xx) of a GET, redirects followed; its body is the caller's to read
 * under `signal`, which aborts when `timeoutMs` has passed since the start.
 */
export async function openOutbound(rawUrl: string, options: OutboundOptions): Promise<{ response: IncomingMessage; url: URL; signal: AbortSignal }> {
  const { messages } = options;
  const signal = AbortSignal.timeout(options.timeoutMs);
  let url = await checkOutboundUrl(rawUrl, options);
  for (let hop = 0; ; hop++) {
    const response = await request(url, options, signal);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (hop >= options.maxRedirects) throw invalid(messages.tooManyRedirects);
      let next: URL;
      try {
        next = new URL(response.headers.location, url);
      } catch {
        throw invalid(messages.failed("it redirects to an invalid URL"));
      }
      url = await checkOutboundUrl(next.href, options);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.resume();
      throw invalid(messages.status(status));
    }
    return { response, url, signal };
  }
}

function request(url: URL, options: OutboundOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const client = url.protocol === "https:" ? https : http;
  const { messages, idleTimeoutMs } = options;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: "GET",
      // A fresh connection per hop, resolved through the guard: no pooled socket to an
      // address checked for another host.
      agent: false,
      lookup: guardedLookup(options.policy, options.resolver ?? systemResolver),
      signal,
      headers: options.headers,
      ...(idleTimeoutMs ? { timeout: idleTimeoutMs } : {}),
    });
    req.once("response", resolve);
    if (idleTimeoutMs) req.once("timeout", () => req.destroy(new Error(`no answer within ${Math.round(idleTimeoutMs / 1000)} s`)));
    req.once("error", (error) => {
      if (error instanceof ForbiddenAddressError || (error as { code?: string }).code === "EFORBIDDENADDRESS") {
        return reject(invalid(messages.forbidden));
      }
      reject(invalid(signal.aborted ? messages.timeout : messages.failed(error.message)));
    });
    req.end();
  });
}
