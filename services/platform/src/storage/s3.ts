import { Transform, type Readable, type TransformCallback } from "node:stream";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { AppError, ConfigError } from "../errors.js";
import {
  assertValidContentLength,
  assertValidContentType,
  assertValidExpiresIn,
  assertValidFileName,
} from "./constraints.js";
import { contentDisposition } from "./content-disposition.js";
import { assertValidKey, assertValidKeyPrefix } from "./keys.js";
import {
  DEFAULT_CONTENT_TYPE,
  RangeNotSatisfiableError,
  type ByteRange,
  type GetObjectOptions,
  type GetObjectResult,
  type ObjectMetadata,
  type ObjectStorage,
  type PresignedUrl,
  type PresignGetOptions,
  type PresignPutOptions,
  type PutObjectOptions,
} from "./port.js";

export interface S3ObjectStorageOptions {
  bucket: string;
  region: string;
  /** Unset for AWS; e.g. http://127.0.0.1:9000 for MinIO. */
  endpoint?: string;
  /**
   * The endpoint presigned URLs name, when browsers reach the store at another address
   * than the service does (a public hostname in front of an in-cluster MinIO).
   */
  publicEndpoint?: string;
  /** Path-style addressing (http://host/bucket/key); MinIO and most S3-compatibles need it. */
  forcePathStyle?: boolean;
  /** Static credentials; unset uses the SDK's default chain (env, profile, IAM role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Part size for uploads of unknown length (bytes, >= 5 MiB); also the most held in memory. */
  multipartPartSize?: number;
  /** Extra client settings (timeouts, a custom request handler). */
  clientConfig?: Omit<S3ClientConfig, "region" | "endpoint" | "credentials" | "forcePathStyle">;
}

const MIN_PART_SIZE = 5 * 1024 * 1024;
const DELETE_BATCH = 1000;

/**
 * Cluster-mode object storage: S3 or any S3-compatible store. Browsers PUT and GET
 * through presigned URLs; the content type and exact length of a PUT are signed
 * headers, so the store itself refuses any other body.
 */
export class S3ObjectStorage implements ObjectStorage {
  readonly #client: S3Client;
  /** Signs URLs for browsers; the same client unless a public endpoint is configured. */
  readonly #presignClient: S3Client;
  readonly #bucket: string;
  readonly #partSize: number;

  constructor(options: S3ObjectStorageOptions) {
    const problems: string[] = [];
    if (!options.bucket) problems.push("S3 bucket is required");
    if (!options.region) problems.push("S3 region is required");
    const partSize = options.multipartPartSize ?? 8 * 1024 * 1024;
    if (!Number.isSafeInteger(partSize) || partSize < MIN_PART_SIZE) problems.push(`S3 part size must be at least ${MIN_PART_SIZE} bytes`);
    if (problems.length > 0) throw new ConfigError(problems);
    const base: S3ClientConfig = {
      ...options.clientConfig,
      region: options.region,
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      // Without this, SDK 3.729+ adds CRC32 checksums: presigned PUTs would then carry a
      // checksum of an empty body, and S3-compatible stores that lack the feature refuse
      // ordinary requests.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    };
    this.#client = new S3Client({ ...base, ...(options.endpoint ? { endpoint: options.endpoint } : {}) });
    const publicEndpoint = options.publicEndpoint ?? options.endpoint;
    this.#presignClient =
      publicEndpoint === options.endpoint
        ? this.#client
        : new S3Client({ ...base, ...(publicEndpoint ? { endpoint: publicEndpoint } : {}) });
    this.#bucket = options.bucket;
    this.#partSize = partSize;
  }

  get bucket(): string {
    return this.#bucket;
  }

  async putObject(key: string, body: Readable | Uint8Array, options: PutObjectOptions = {}): Promise<ObjectMetadata> {
    assertValidKey(key);
    if (options.contentType !== undefined) assertValidContentType(options.contentType);
    if (options.contentLength !== undefined) assertValidContentLength(options.contentLength);
    const contentType = options.contentType ?? DEFAULT_CONTENT_TYPE;
    if (body instanceof Uint8Array) {
      if (options.contentLength !== undefined && body.byteLength !== options.contentLength) {
        throw lengthMismatch(body.byteLength, options.contentLength);
      }
      await this.#send(() => this.#client.send(new PutObjectCommand({ Bucket: this.#bucket, Key: key, Body: body, ContentType: contentType })), key);
    } else if (options.contentLength !== undefined) {
      // The counter refuses a body of another length before S3 would store it (S3 also
      // refuses a short body, but only after a timeout).
      const counted = body.pipe(new ExactLength(options.contentLength));
      // The SDK does not notice its body failing; the refusal aborts the request instead,
      // so S3 never completes the object.
      const abort = new AbortController();
      const refused = new Promise<never>((_, reject) => {
        counted.once("error", (error) => {
          abort.abort(error);
          reject(error);
        });
      });
      refused.catch(() => {});
      body.once("error", (error) => counted.destroy(error));
      const command = new PutObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        Body: counted,
        ContentType: contentType,
        ContentLength: options.contentLength,
      });
      await Promise.race([this.#send(() => this.#client.send(command, { abortSignal: abort.signal }), key, counted), refused]);
    } else {
      await this.#putUnknownLength(key, body, contentType);
    }
    const stored = await this.headObject(key);
    if (!stored) throw new AppError("unavailable", "Object storage did not keep the object");
    return stored;
  }

  async getObject(key: string, options: GetObjectOptions = {}): Promise<GetObjectResult> {
    assertValidKey(key);
    const range = options.range ? rangeHeader(options.range) : undefined;
    if (options.range && range === undefined) {
      const head = await this.headObject(key);
      if (!head) throw notFound(key);
      throw new RangeNotSatisfiableError(head.size);
    }
    let output;
    try {
      output = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key, ...(range ? { Range: range } : {}) }));
    } catch (error) {
      if (isStatus(error, 416) || errorName(error) === "InvalidRange") {
        const head = await this.headObject(key);
        if (!head) throw notFound(key);
        throw new RangeNotSatisfiableError(head.size);
      }
      throw mapError(error, key);
    }
    const body = output.Body as Readable | undefined;
    if (!body) throw new AppError("unavailable", "Object storage returned no body");
    const result: GetObjectResult = {
      body,
      size: output.ContentLength ?? 0,
      contentType: output.ContentType ?? DEFAULT_CONTENT_TYPE,
      lastModified: output.LastModified ?? new Date(),
    };
    if (options.range) {
      const parsed = parseContentRange(output.ContentRange);
      if (parsed) {
        result.contentRange = parsed;
      } else {
        // A store that ignored the Range (whole object, 200) still satisfies "bytes=0-".
        const total = output.ContentLength ?? 0;
        result.contentRange = { start: 0, end: Math.max(0, total - 1), totalSize: total };
      }
    }
    return result;
  }

  async headObject(key: string): Promise<ObjectMetadata | null> {
    assertValidKey(key);
    try {
      const output = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return {
        key,
        size: output.ContentLength ?? 0,
        contentType: output.ContentType ?? DEFAULT_CONTENT_TYPE,
        lastModified: output.LastModified ?? new Date(),
      };
    } catch (error) {
      if (isStatus(error, 404) || errorName(error) === "NotFound" || errorName(error) === "NoSuchKey") return null;
      throw mapError(error, key);
    }
  }

  async deleteObject(key: string): Promise<void> {
    assertValidKey(key);
    await this.#send(() => this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key })), key);
  }

  async deleteObjects(keyPrefix: string): Promise<{ deleted: number }> {
    assertValidKeyPrefix(keyPrefix);
    let deleted = 0;
    let continuationToken: string | undefined;
    do {
      const page = await this.#send(() => this.#client.send(new ListObjectsV2Command({
          Bucket: this.#bucket,
          Prefix: keyPrefix,
          MaxKeys: DELETE_BATCH,
          ...(continuationToken ? { ContinuationToken: continuationToken } : {}),
        })),
        keyPrefix,
      );
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length > 0) {
        const result = await this.#send(() => this.#client.send(new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects: keys, Quiet: true } })),
          keyPrefix,
        );
        const failed = result.Errors ?? [];
        if (failed.length > 0) {
          throw new AppError("unavailable", `Object storage could not delete ${failed.length} object(s): ${failed[0]?.Message ?? ""}`);
        }
        deleted += keys.length;
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken);
    return { deleted };
  }

  async presignPut(key: string, options: PresignPutOptions): Promise<PresignedUrl> {
    assertValidKey(key);
    assertValidExpiresIn(options.expiresInSeconds);
    assertValidContentType(options.contentType);
    assertValidContentLength(options.contentLength);
    const command = new PutObjectCommand({
      Bucket: this.#bucket,
      Key: key,
      ContentType: options.contentType,
      ContentLength: options.contentLength,
    });
    const signedAt = new Date();
    // Content-Type and Content-Length stay signed headers (never hoisted into the query),
    // so a PUT with another type or another number of bytes fails the signature check.
    const url = await getSignedUrl(this.#presignClient, command, {
      expiresIn: options.expiresInSeconds,
      signingDate: signedAt,
      signableHeaders: new Set(["content-type", "content-length"]),
      unhoistableHeaders: new Set(["content-type", "content-length"]),
    });
    return { url, expiresAt: new Date(Math.floor(signedAt.getTime() / 1000) * 1000 + options.expiresInSeconds * 1000) };
  }

  async presignGet(key: string, options: PresignGetOptions): Promise<PresignedUrl> {
    assertValidKey(key);
    assertValidExpiresIn(options.expiresInSeconds);
    if (options.fileName !== undefined) assertValidFileName(options.fileName);
    const command = new GetObjectCommand({
      Bucket: this.#bucket,
      Key: key,
      ...(options.fileName !== undefined ? { ResponseContentDisposition: contentDisposition(options.fileName) } : {}),
    });
    const signedAt = new Date();
    const url = await getSignedUrl(this.#presignClient, command, { expiresIn: options.expiresInSeconds, signingDate: signedAt });
    return { url, expiresAt: new Date(Math.floor(signedAt.getTime() / 1000) * 1000 + options.expiresInSeconds * 1000) };
  }

  async ping(): Promise<void> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }));
    } catch (error) {
      const why = isStatus(error, 404) ? `bucket ${this.#bucket} does not exist` : describe(error);
      throw new AppError("unavailable", `Object storage is not usable: ${why}`);
    }
  }

  /** Closes the clients' sockets. */
  destroy(): void {
    this.#client.destroy();
    if (this.#presignClient !== this.#client) this.#presignClient.destroy();
  }

  /**
   * A stream of unknown length: one PutObject when it fits in one part, otherwise a
   * multipart upload. At most one part is held in memory; S3 shows the object only once
   * the upload completes, so readers never see part of it.
   */
  async #putUnknownLength(key: string, body: Readable, contentType: string): Promise<void> {
    const parts = partsOf(body, this.#partSize);
    const first = await parts.next();
    const firstPart = first.done ? Buffer.alloc(0) : first.value;
    const second = first.done ? undefined : await parts.next();
    if (!second || second.done) {
      await this.#send(() => this.#client.send(new PutObjectCommand({ Bucket: this.#bucket, Key: key, Body: firstPart, ContentType: contentType })), key);
      return;
    }
    const created = await this.#send(() => this.#client.send(new CreateMultipartUploadCommand({ Bucket: this.#bucket, Key: key, ContentType: contentType })), key);
    const uploadId = created.UploadId;
    if (!uploadId) throw new AppError("unavailable", "Object storage did not start a multipart upload");
    try {
      const etags: Array<{ ETag: string; PartNumber: number }> = [];
      const upload = async (part: Buffer) => {
        const partNumber = etags.length + 1;
        const out = await this.#send(() => this.#client.send(new UploadPartCommand({ Bucket: this.#bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: part })),
          key,
        );
        etags.push({ ETag: out.ETag ?? "", PartNumber: partNumber });
      };
      await upload(firstPart);
      await upload(second.value);
      for (let next = await parts.next(); !next.done; next = await parts.next()) await upload(next.value);
      await this.#send(() => this.#client.send(new CompleteMultipartUploadCommand({ Bucket: this.#bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: etags } })),
        key,
      );
    } catch (error) {
      await this.#client
        .send(new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key: key, UploadId: uploadId }))
        .catch(() => undefined);
      body.destroy();
      throw error;
    }
  }

  async #send<T>(call: () => Promise<T>, key: string, body?: Readable): Promise<T> {
    try {
      return await call();
    } catch (error) {
      // The counting stream's own refusal is the clearer message.
      const bodyError = body?.errored;
      if (bodyError instanceof AppError) throw bodyError;
      if (error instanceof AppError) throw error;
      throw mapError(error, key);
    }
  }
}

/** Reads a stream into parts of exactly `size` bytes (the last may be shorter). */
async function* partsOf(body: Readable, size: number): AsyncGenerator<Buffer, void> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of body) {
    let buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    while (pendingBytes + buffer.length >= size) {
      const take = size - pendingBytes;
      pending.push(buffer.subarray(0, take));
      yield Buffer.concat(pending, size);
      buffer = buffer.subarray(take);
      pending = [];
      pendingBytes = 0;
    }
    if (buffer.length > 0) {
      pending.push(buffer);
      pendingBytes += buffer.length;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending, pendingBytes);
}

/** Fails as soon as the body runs past the declared length, or ends short of it. */
class ExactLength extends Transform {
  #bytes = 0;
  constructor(private readonly expected: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#bytes += chunk.length;
    if (this.#bytes > this.expected) callback(lengthMismatch(this.#bytes, this.expected));
    else callback(null, chunk);
  }
  override _flush(callback: TransformCallback): void {
    callback(this.#bytes === this.expected ? null : lengthMismatch(this.#bytes, this.expected));
  }
}

function lengthMismatch(actual: number, expected: number): AppError {
  const relation = actual > expected ? "more than" : `only ${actual} of`;
  return new AppError("invalid_argument", `Upload sent ${relation} the ${expected} bytes declared`, {
    reason: "content_length_mismatch",
    expected,
  });
}

/** The Range header for a ByteRange; undefined when no object could satisfy it. */
function rangeHeader(range: ByteRange): string | undefined {
  if ("suffixLength" in range) {
    return Number.isSafeInteger(range.suffixLength) && range.suffixLength > 0 ? `bytes=-${range.suffixLength}` : undefined;
  }
  if (!Number.isSafeInteger(range.start) || range.start < 0) return undefined;
  if (range.end === undefined) return `bytes=${range.start}-`;
  if (!Number.isSafeInteger(range.end) || range.end < range.start) return undefined;
  return `bytes=${range.start}-${range.end}`;
}

function parseContentRange(header: string | undefined) {
  const match = header ? /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header) : null;
  if (!match) return undefined;
  return { start: Number(match[1]), end: Number(match[2]), totalSize: Number(match[3]) };
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

function isStatus(error: unknown, status: number): boolean {
  return error instanceof S3ServiceException && error.$metadata?.httpStatusCode === status;
}

function describe(error: unknown): string {
  if (error instanceof S3ServiceException) return `${error.name} (${error.$metadata?.httpStatusCode ?? "no status"})`;
  return error instanceof Error ? error.message : String(error);
}

function notFound(key: string): AppError {
  return new AppError("not_found", "Object not found", { key });
}

/** S3 faults as AppErrors: a missing key is not_found, everything else the store's problem. */
function mapError(error: unknown, key: string): AppError {
  if (error instanceof AppError) return error;
  if (errorName(error) === "NoSuchKey" || isStatus(error, 404)) return notFound(key);
  if (errorName(error) === "AccessDenied" || isStatus(error, 403)) {
    return new AppError("unavailable", `Object storage refused access: ${describe(error)}`);
  }
  return new AppError("unavailable", `Object storage request failed: ${describe(error)}`);
}
