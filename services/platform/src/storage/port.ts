import type { Readable } from "node:stream";
import { AppError } from "../errors.js";

/**
 * Object storage as the services see it. Two adapters implement it: a local directory
 * behind HMAC-signed URLs (embedded mode) and S3 with presigned URLs (cluster mode), so
 * nothing here may assume either one. Keys follow `assertValidKey`.
 */
export interface ObjectStorage {
  /** Replaces any existing object atomically: readers see the old or the new object, never a partial one. */
  putObject(key: string, body: Readable | Uint8Array, options?: PutObjectOptions): Promise<ObjectMetadata>;
  /** Throws AppError("not_found") when missing, RangeNotSatisfiableError for a range past the end. */
  getObject(key: string, options?: GetObjectOptions): Promise<GetObjectResult>;
  headObject(key: string): Promise<ObjectMetadata | null>;
  /** Idempotent: deleting a missing object succeeds. */
  deleteObject(key: string): Promise<void>;
  /** Deletes every object whose key starts with `keyPrefix` (a string prefix, as in S3). */
  deleteObjects(keyPrefix: string): Promise<{ deleted: number }>;
  /** A URL a browser can PUT exactly `contentLength` bytes of `contentType` to. */
  presignPut(key: string, options: PresignPutOptions): Promise<PresignedUrl>;
  /** A URL a browser or media element can GET (with Range) until it expires. */
  presignGet(key: string, options: PresignGetOptions): Promise<PresignedUrl>;
  /** Throws AppError("unavailable") when the store cannot be used. */
  ping(): Promise<void>;
}

export interface PutObjectOptions {
  contentType?: string;
  /** When given, a body of any other length is refused and nothing is stored. */
  contentLength?: number;
}

/**
 * Inclusive byte positions as in HTTP. The suffix form exists because a media element's
 * `bytes=-N` cannot be turned into a start offset without a second round trip, and S3
 * accepts it natively.
 */
export type ByteRange = { start: number; end?: number } | { suffixLength: number };

export interface GetObjectOptions {
  range?: ByteRange;
}

export interface ObjectMetadata {
  key: string;
  size: number;
  contentType: string;
  lastModified: Date;
}

export interface ContentRange {
  start: number;
  /** Inclusive. */
  end: number;
  totalSize: number;
}

export interface GetObjectResult {
  /** The caller must consume or destroy it; it holds an open file or connection. */
  body: Readable;
  /** Bytes in `body` (the range length for a ranged read, like S3's ContentLength). */
  size: number;
  contentType: string;
  lastModified: Date;
  /** Present exactly when a range was requested. */
  contentRange?: ContentRange;
}

export interface PresignPutOptions {
  expiresInSeconds: number;
  contentType: string;
  contentLength: number;
}

export interface PresignGetOptions {
  expiresInSeconds: number;
  /** Makes the response a download with this name (Content-Disposition: attachment). */
  fileName?: string;
}

export interface PresignedUrl {
  url: string;
  expiresAt: Date;
}

export const DEFAULT_CONTENT_TYPE = "application/octet-stream";

/**
 * Its own class so an HTTP layer can answer 416 with the object size without parsing
 * messages; still an AppError so it crosses RPC boundaries as invalid_argument.
 */
export class RangeNotSatisfiableError extends AppError {
  constructor(readonly objectSize: number) {
    super("invalid_argument", "Requested range is not satisfiable", { objectSize });
  }
}
