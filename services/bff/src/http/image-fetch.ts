import type { IncomingMessage } from "node:http";
import { AppError, type AddressPolicy, checkOutboundUrl, type HostResolver, type OutboundMessages, openOutbound } from "@transcribe/platform";

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

const outboundMessages: OutboundMessages = {
  ...imageProxyMessages,
  failed: () => imageProxyMessages.failed,
};

/** Scheme, credentials and the host's addresses (every one must be allowed) before any request. */
export function checkImageUrl(raw: string, options: Pick<ImageFetchOptions, "policy" | "resolver">): Promise<URL> {
  return checkOutboundUrl(raw, { ...options, messages: outboundMessages });
}

/**
 * Fetches an image a user named through the platform's outbound fetch (every hop checked,
 * connections through the address guard), no cookies or other caller headers, only raster
 * image types, cut off past maxBytes and timeoutMs. Refusals are AppErrors with a message
 * for the user.
 */
export async function fetchImage(rawUrl: string, options: ImageFetchOptions): Promise<FetchedImage> {
  const { response, signal } = await openOutbound(rawUrl, {
    policy: options.policy,
    ...(options.resolver ? { resolver: options.resolver } : {}),
    messages: outboundMessages,
    maxRedirects: options.maxRedirects ?? 3,
    timeoutMs: options.timeoutMs,
    headers: { "user-agent": "transcribe-image-proxy/1", accept: "image/avif,image/webp,image/png,image/jpeg,image/gif;q=0.9" },
  });
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
