import { createWriteStream } from "node:fs";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  addressPolicy as sharedAddressPolicy,
  AppError,
  bareHost,
  ForbiddenAddressError,
  guardedLookup,
  isAllowedAddress,
  resolveAllowed,
  type AddressPolicy,
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

/** Checks a URL before any request: scheme, credentials, and where its host resolves. */
export async function checkImportUrl(raw: string, policy: AddressPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid(importMessages.invalidUrl);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(importMessages.scheme);
  if (url.username || url.password) throw invalid(importMessages.credentials);
  const host = bareHost(url);
  try {
    await resolveAllowed(host, policy);
  } catch (error) {
    throw error instanceof ForbiddenAddressError ? invalid(importMessages.forbiddenAddress) : invalid(importMessages.unresolvable(host));
  }
  return url;
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
  const signal = AbortSignal.timeout(options.timeoutMs);
  let url = await checkImportUrl(rawUrl, options.policy);
  for (let hop = 0; ; hop++) {
    const response = await request(url, options.policy, signal);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (hop >= (options.maxRedirects ?? 5)) throw invalid(importMessages.tooManyRedirects);
      let next: URL;
      try {
        next = new URL(response.headers.location, url);
      } catch {
        throw invalid(importMessages.failed("it redirects to an invalid URL"));
      }
      url = await checkImportUrl(next.href, options.policy);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.resume();
      throw invalid(importMessages.status(status));
    }
    return await receive(response, url, destination, options, signal);
  }
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

function request(url: URL, policy: AddressPolicy, signal: AbortSignal): Promise<IncomingMessage> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: "GET",
      // A fresh connection per hop, resolved through the guard: no pooled socket to an
      // address checked for another host.
      agent: false,
      lookup: guardedLookup(policy),
      signal,
      headers: { "user-agent": "transcribe-media-import/1", accept: "audio/*, video/*;q=0.9, */*;q=0.5" },
      timeout: 30_000,
    });
    req.once("response", resolve);
    req.once("timeout", () => req.destroy(new Error("no answer within 30 s")));
    req.once("error", (error) => {
      if (error instanceof ForbiddenAddressError || (error as { code?: string }).code === "EFORBIDDENADDRESS") {
        return reject(invalid(importMessages.forbiddenAddress));
      }
      if (signal.aborted) return reject(invalid(importMessages.timeout));
      reject(invalid(importMessages.failed(error.message)));
    });
    req.end();
  });
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
