import { createWriteStream } from "node:fs";
import type { IncomingMessage } from "node:http";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  addressPolicy as sharedAddressPolicy,
  AppError,
  checkOutboundUrl,
  isAllowedAddress,
  openOutbound,
  type AddressPolicy,
  type OutboundMessages,
} from "@transcribe/platform";
import { ALLOWED_CONTENT_TYPES, contentTypeForExtension, hasExtension, messages, normalizeContentType, type AllowedContentType } from "../domain/rules.js";

export const importMessages = {
  scheme: "Only http:// and https:// URLs can be imported",
  invalidUrl: "This is not a valid URL",
  credentials: "URLs with a user name or password cannot be imported",
  forbiddenAddress: "This URL points to a private, local or reserved network address and cannot be imported",
  unresolvable: (host: string) => `The host ${host} could not be found`,
  tooManyRedirects: "The URL redirects too many times",
  status: (status: number) => `The URL answered with HTTP status ${status}`,
  failed: (why: string) => `The URL could not be fetched: ${why}`,
  timeout: "The URL took too long to download",
} as const;

/** The address rules live in the platform (shared with the BFF's image proxy). */
export { isAllowedAddress, type AddressPolicy };

export function addressPolicy(allowCidrs: readonly string[]): AddressPolicy {
  return sharedAddressPolicy(allowCidrs, "MEDIA_IMPORT_ALLOW_CIDRS");
}

const outboundMessages: OutboundMessages = { ...importMessages, forbidden: importMessages.forbiddenAddress };

/** Checks a URL before any request: scheme, credentials, and where its host resolves. */
export function checkImportUrl(raw: string, policy: AddressPolicy): Promise<URL> {
  return checkOutboundUrl(raw, { policy, messages: outboundMessages });
}

export interface FetchedFile {
  fileName: string;
  contentType: AllowedContentType;
  size: number;
}

export interface FetchOptions {
  policy: AddressPolicy;
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
}

/**
 * Downloads a public http(s) URL to `destination`, following redirects by hand so that
 * every hop is checked like the first one. The body is streamed to disk and cut off as
 * soon as it passes the size limit. Refusals are AppErrors with a message for the user.
 */
export async function fetchToFile(rawUrl: string, destination: string, options: FetchOptions): Promise<FetchedFile> {
  const { response, url, signal } = await openOutbound(rawUrl, {
    policy: options.policy,
    messages: outboundMessages,
    maxRedirects: options.maxRedirects ?? 5,
    timeoutMs: options.timeoutMs,
    idleTimeoutMs: 30_000,
    headers: { "user-agent": "transcribe-media-import/1", accept: "audio/*, video/*;q=0.9, */*;q=0.5" },
  });
  return await receive(response, url, destination, options, signal);
}

async function receive(
  response: IncomingMessage,
  url: URL,
  destination: string,
  options: FetchOptions,
  signal: AbortSignal,
): Promise<FetchedFile> {
  const declaredLength = response.headers["content-length"] === undefined ? undefined : Number(response.headers["content-length"]);
  const fileName = nameFor(url, response.headers["content-disposition"]);
  const contentType = typeFor(response.headers["content-type"], fileName);
  if (!contentType) {
    response.destroy();
    throw invalid(messages.invalidFileType);
  }
  if (declaredLength !== undefined && Number.isFinite(declaredLength)) {
    if (declaredLength > options.maxBytes) {
      response.destroy();
      throw invalid(messages.fileTooLarge(options.maxBytes));
    }
  }
  const counter = new SizeLimit(options.maxBytes);
  try {
    await pipeline(response, counter, createWriteStream(destination), { signal });
  } catch (error) {
    response.destroy();
    if (error instanceof AppError) throw error;
    if (signal.aborted) throw invalid(importMessages.timeout);
    throw invalid(importMessages.failed((error as Error).message));
  }
  if (counter.bytes === 0) throw invalid(messages.fileEmpty);
  return {
    fileName: hasExtension(fileName) ? fileName : `${fileName}.${ALLOWED_CONTENT_TYPES[contentType]}`,
    contentType,
    size: counter.bytes,
  };
}

class SizeLimit extends Transform {
  bytes = 0;
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.max) callback(invalid(messages.fileTooLarge(this.max)));
    else callback(null, chunk);
  }
}

/** The server's type when it is one of ours; its "binary" answers are judged by the name. */
function typeFor(header: string | undefined, fileName: string): AllowedContentType | undefined {
  const declared = header ? normalizeContentType(header) : undefined;
  if (declared) return declared;
  const bare = header?.split(";")[0]?.trim().toLowerCase();
  if (bare === undefined || bare === "" || bare === "application/octet-stream" || bare === "binary/octet-stream") {
    return contentTypeForExtension(fileName);
  }
  return undefined;
}

function nameFor(url: URL, disposition: string | undefined): string {
  const fromHeader = disposition ? /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1] : undefined;
  let name = fromHeader ?? url.pathname.split("/").filter(Boolean).pop() ?? "";
  try {
    name = decodeURIComponent(name);
  } catch {
    // keep it as it is
  }
  name = name.replace(/[\u0000-\u001f\u007f/\\]/g, "_").trim().slice(0, 200);
  return name.length > 0 ? name : "download";
}


function invalid(message: string): AppError {
  return new AppError("invalid_argument", message);
}
