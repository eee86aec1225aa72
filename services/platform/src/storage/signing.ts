import { createHmac, timingSafeEqual } from "node:crypto";

export type SignedMethod = "GET" | "PUT";

/** Everything a signed URL grants; every field is covered by the signature. */
export interface SignedUrlClaims {
  method: SignedMethod;
  key: string;
  /** Unix seconds. */
  expires: number;
  contentType?: string;
  contentLength?: number;
  fileName?: string;
}

export type SignedRequestRefusal = "malformed" | "bad signature" | "method mismatch" | "expired";

export type SignedRequestVerdict =
  | { ok: true; claims: SignedUrlClaims; expiresAt: Date }
  | { ok: false; reason: SignedRequestRefusal };

export type SignedQuery = URLSearchParams | Record<string, string | readonly string[] | undefined>;

export interface SignedRequest {
  method: SignedMethod;
  key: string;
  query: SignedQuery;
  now?: Date;
}

export const MIN_SIGNING_SECRET_BYTES = 32;

/** Query parameter names; short because they end up in every media URL. */
const P = { method: "method", expires: "expires", contentType: "ct", contentLength: "len", fileName: "fn", sig: "sig" };
// Changing the signed fields or their encoding must bump this so old URLs stop verifying
// instead of being read differently.
const SCHEME = "transcribe.local-object-storage.v1";
const SIGNATURE_LENGTH = 43; // base64url of 32 bytes, no padding

export class UrlSigner {
  readonly #secret: Buffer;

  constructor(secret: string | Uint8Array) {
    this.#secret = Buffer.from(secret);
    if (this.#secret.length < MIN_SIGNING_SECRET_BYTES) {
      throw new Error(`Signing secret must be at least ${MIN_SIGNING_SECRET_BYTES} bytes`);
    }
  }

  /** The query string (without "?") that carries `claims` and their signature. */
  toQuery(claims: SignedUrlClaims): string {
    const query = new URLSearchParams();
    query.set(P.method, claims.method);
    query.set(P.expires, String(claims.expires));
    if (claims.contentType !== undefined) query.set(P.contentType, claims.contentType);
    if (claims.contentLength !== undefined) query.set(P.contentLength, String(claims.contentLength));
    if (claims.fileName !== undefined) query.set(P.fileName, claims.fileName);
    query.set(P.sig, this.#sign(claims));
    return query.toString();
  }

  /**
   * The signature is checked before anything it covers is believed, so a tampered URL
   * reports "bad signature" rather than whatever field was edited.
   */
  verify(request: SignedRequest): SignedRequestVerdict {
    const claims = readClaims(request.key, request.query);
    if (!claims) return { ok: false, reason: "malformed" };
    const given = single(request.query, P.sig);
    if (given === undefined || !this.#signatureMatches(claims.claims, given)) {
      return { ok: false, reason: "bad signature" };
    }
    if (claims.claims.method !== request.method) return { ok: false, reason: "method mismatch" };
    const expiresAt = new Date(claims.claims.expires * 1000);
    if ((request.now ?? new Date()).getTime() >= expiresAt.getTime()) return { ok: false, reason: "expired" };
    return { ok: true, claims: claims.claims, expiresAt };
  }

  #sign(claims: SignedUrlClaims): string {
    // A JSON array is an unambiguous encoding: no value can imitate a field boundary.
    const canonical = JSON.stringify([
      SCHEME,
      claims.method,
      claims.key,
      claims.expires,
      claims.contentType ?? null,
      claims.contentLength ?? null,
      claims.fileName ?? null,
    ]);
    return createHmac("sha256", this.#secret).update(canonical, "utf8").digest("base64url");
  }

  #signatureMatches(claims: SignedUrlClaims, given: string): boolean {
    const expected = Buffer.from(this.#sign(claims), "utf8");
    const actual = Buffer.from(given, "utf8");
    // timingSafeEqual needs equal lengths; the expected length is public, so checking it
    // first leaks nothing.
    return actual.length === SIGNATURE_LENGTH && expected.length === actual.length && timingSafeEqual(expected, actual);
  }
}

function readClaims(key: string, query: SignedQuery): { claims: SignedUrlClaims } | undefined {
  const names = Object.values(P);
  if (names.some((name) => isAmbiguous(query, name))) return undefined;
  const method = single(query, P.method);
  const expires = parseInteger(single(query, P.expires), 15);
  if ((method !== "GET" && method !== "PUT") || expires === undefined) return undefined;
  const claims: SignedUrlClaims = { method, key, expires };
  const contentType = single(query, P.contentType);
  if (contentType !== undefined) claims.contentType = contentType;
  const rawLength = single(query, P.contentLength);
  if (rawLength !== undefined) {
    const contentLength = parseInteger(rawLength, 16);
    if (contentLength === undefined) return undefined;
    claims.contentLength = contentLength;
  }
  const fileName = single(query, P.fileName);
  if (fileName !== undefined) claims.fileName = fileName;
  // Only presignPut mints PUT URLs and it always binds both; a PUT URL without them can
  // only be forged or truncated.
  if (method === "PUT" && (claims.contentType === undefined || claims.contentLength === undefined)) return undefined;
  return { claims };
}

function isAmbiguous(query: SignedQuery, name: string): boolean {
  const values = query instanceof URLSearchParams ? query.getAll(name) : toArray(query[name]);
  return values.length > 1;
}

function single(query: SignedQuery, name: string): string | undefined {
  if (query instanceof URLSearchParams) return query.get(name) ?? undefined;
  const values = toArray(query[name]);
  return values.length === 1 ? values[0] : undefined;
}

function toArray(value: string | readonly string[] | undefined): readonly string[] {
  if (value === undefined) return [];
  return typeof value === "string" ? [value] : value;
}

function parseInteger(raw: string | undefined, maxDigits: number): number | undefined {
  if (raw === undefined || raw.length > maxDigits || !/^\d+$/.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : undefined;
}
