import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import {
  AppError,
  bareHost,
  ForbiddenAddressError,
  guardedLookup,
  resolveAllowed,
  systemResolver,
  type AddressPolicy,
  type HostResolver,
} from "@transcribe/platform";

export const imageProxyMessages = {
  invalidUrl: "This is not a valid URL",
  scheme: "Only http:// and https:// image URLs can be loaded",
  credentials: "Image URLs with a user name or password cannot be loaded",
  forbidden: "This URL points to localhost or a private network and cannot be loaded",
  unresolvable: (host: string) => `The host ${host} could not be found`,
  tooManyRedirects: "The image URL redirects too many times",
  status: (status: number) => `The image URL answered with HTTP status ${status}`,
  notImage: "The URL is not an image",
  tooLarge: "The image is too large",
  timeout: "The image took too long to load",
  failed: "The image could not be loaded",
} as const;

/** Raster formats only: SVG can carry script, so it is never proxied. */
export const PROXIED_IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/x-icon", "image/vnd.microsoft.icon", "image/bmp"] as const;

export interface ImageFetchOptions {
  policy: AddressPolicy;
  resolver?: HostResolver;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
}

export interface FetchedImage {
  contentType: string;
  body: Buffer;
}

const invalid = (message: string) => new AppError("invalid_argument", message);

/** Scheme, credentials and the host's addresses (every one must be allowed) before any request. */
export async function checkImageUrl(raw: string, options: Pick<ImageFetchOptions, "policy" | "resolver">): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid(imageProxyMessages.invalidUrl);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(imageProxyMessages.scheme);
  if (url.username || url.password) throw invalid(imageProxyMessages.credentials);
  try {
    await resolveAllowed(bareHost(url), options.policy, options.resolver ?? systemResolver);
  } catch (error) {
    if (error instanceof ForbiddenAddressError) throw invalid(imageProxyMessages.forbidden);
    throw invalid(imageProxyMessages.unresolvable(bareHost(url)));
  }
  return url;
}

/**
 * Fetches an image a user named: redirects followed by hand with every hop checked like
 * the first, connections resolved through the address guard (no DNS rebinding between
 * check and connect), no cookies or other caller headers, only raster image types, cut
 * off past maxBytes and timeoutMs. Refusals are AppErrors with a message for the user.
 */
export async function fetchImage(rawUrl: string, options: ImageFetchOptions): Promise<FetchedImage> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let url = await checkImageUrl(rawUrl, options);
  for (let hop = 0; ; hop++) {
    const response = await request(url, options, signal);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (hop >= (options.maxRedirects ?? 3)) throw invalid(imageProxyMessages.tooManyRedirects);
      let next: URL;
      try {
        next = new URL(response.headers.location, url);
      } catch {
        throw invalid(imageProxyMessages.failed);
      }
      url = await checkImageUrl(next.href, options);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.resume();
      throw invalid(imageProxyMessages.status(status));
    }
    const contentType = (response.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (!(PROXIED_IMAGE_TYPES as readonly string[]).includes(contentType)) {
      response.destroy();
      throw invalid(imageProxyMessages.notImage);
    }
    const declared = Number(response.headers["content-length"] ?? Number.NaN);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      response.destroy();
      throw invalid(imageProxyMessages.tooLarge);
    }
    return { contentType, body: await readLimited(response, options.maxBytes, signal) };
  }
}

function request(url: URL, options: ImageFetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: "GET",
      agent: false,
      lookup: guardedLookup(options.policy, options.resolver ?? systemResolver),
      signal,
      headers: { "user-agent": "transcribe-image-proxy/1", accept: "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9" },
    });
    req.once("response", resolve);
    req.once("error", (error) => {
      if (error instanceof ForbiddenAddressError || (error as { code?: string }).code === "EFORBIDDENADDRESS") {
        return reject(invalid(imageProxyMessages.forbidden));
      }
      reject(invalid(signal.aborted ? imageProxyMessages.timeout : imageProxyMessages.failed));
    });
    req.end();
  });
}

async function readLimited(response: IncomingMessage, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of response) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        response.destroy();
        throw invalid(imageProxyMessages.tooLarge);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw invalid(signal.aborted ? imageProxyMessages.timeout : imageProxyMessages.failed);
  }
  if (size === 0) throw invalid(imageProxyMessages.notImage);
  return Buffer.concat(chunks);
}
