import { constants } from "node:fs";
import { access, lstat, mkdir, readdir, realpath, rm, type FileHandle } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { AppError, ConfigError } from "../errors.js";
import {
  assertValidContentLength,
  assertValidContentType,
  assertValidExpiresIn,
  assertValidFileName,
} from "./constraints.js";
import { assertValidKey, assertValidKeyPrefix } from "./keys.js";
import {
  countObjects,
  hasCode,
  isAuxiliaryName,
  isInside,
  openForRead,
  pruneEmptyDirectories,
  readSidecar,
  realDirInside,
  removeIfPresent,
  sidecarPath,
  writeAtomically,
} from "./local-files.js";
import {
  DEFAULT_CONTENT_TYPE,
  RangeNotSatisfiableError,
  type GetObjectOptions,
  type GetObjectResult,
  type ObjectMetadata,
  type ObjectStorage,
  type PresignedUrl,
  type PresignGetOptions,
  type PresignPutOptions,
  type PutObjectOptions,
} from "./port.js";
import { resolveByteRange } from "./range.js";
import { UrlSigner, type SignedRequest, type SignedRequestVerdict, type SignedUrlClaims } from "./signing.js";

export interface LocalObjectStorageOptions {
  /** Created on first use. */
  rootDir: string;
  /** Where `localStorageRoutes` is reachable from browsers, e.g. http://localhost:3000/storage. */
  publicBaseUrl: string;
  /** At least 32 bytes; anyone holding it can mint upload and download URLs. */
  signingSecret: string | Uint8Array;
  /** Milliseconds since the epoch; injectable so expiry is testable without waiting. */
  now?: () => number;
}

interface Location {
  root: string;
  file: string;
  dir: string;
}

/**
 * Embedded-mode object storage: one file per object under rootDir, served to browsers by
 * `localStorageRoutes` through HMAC-signed URLs shaped like S3 presigned ones.
 */
export class LocalObjectStorage implements ObjectStorage {
  readonly #rootDir: string;
  readonly #baseUrl: string;
  readonly #signer: UrlSigner;
  readonly #now: () => number;
  #realRoot: Promise<string> | undefined;

  constructor(options: LocalObjectStorageOptions) {
    const problems: string[] = [];
    if (!options.rootDir) problems.push("storage rootDir is required");
    const baseUrl = parseBaseUrl(options.publicBaseUrl);
    if (!baseUrl) problems.push("storage publicBaseUrl must be an absolute http(s) URL without query or fragment");
    let signer: UrlSigner | undefined;
    try {
      signer = new UrlSigner(options.signingSecret);
    } catch (error) {
      problems.push(`storage ${(error as Error).message.toLowerCase()}`);
    }
    if (problems.length > 0 || !baseUrl || !signer) throw new ConfigError(problems);
    this.#rootDir = path.resolve(options.rootDir);
    this.#baseUrl = baseUrl;
    this.#signer = signer;
    this.#now = options.now ?? Date.now;
  }

  async putObject(key: string, body: Readable | Uint8Array, options: PutObjectOptions = {}): Promise<ObjectMetadata> {
    assertValidKey(key);
    if (options.contentType !== undefined) assertValidContentType(options.contentType);
    if (options.contentLength !== undefined) assertValidContentLength(options.contentLength);
    const contentType = options.contentType ?? DEFAULT_CONTENT_TYPE;
    const location = await this.#locate(key);
    try {
      const written = await writeAtomically(
        location.file,
        body,
        options.contentLength,
        (size) => ({ contentType, size }),
        () => this.#ensureDirectory(location),
      );
      return { key, contentType, ...written };
    } catch (error) {
      // A refused upload should leave no trace, not even the directories made for it.
      await pruneEmptyDirectories(location.root, location.dir);
      throw error;
    }
  }

  async getObject(key: string, options: GetObjectOptions = {}): Promise<GetObjectResult> {
    const location = await this.#locate(key);
    const handle = await this.#openExisting(location);
    if (!handle) throw notFound(key);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw notFound(key);
      const contentType = (await readSidecar(location.file, stat.size))?.contentType ?? DEFAULT_CONTENT_TYPE;
      const lastModified = new Date(stat.mtimeMs);
      // Each returned stream owns the handle and closes it when ended or destroyed.
      if (!options.range) {
        return { body: handle.createReadStream(), size: stat.size, contentType, lastModified };
      }
      const range = resolveByteRange(options.range, stat.size);
      if (!range) throw new RangeNotSatisfiableError(stat.size);
      return {
        body: handle.createReadStream({ start: range.start, end: range.end }),
        size: range.end - range.start + 1,
        contentType,
        lastModified,
        contentRange: { ...range, totalSize: stat.size },
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async headObject(key: string): Promise<ObjectMetadata | null> {
    const location = await this.#locate(key);
    if (!(await realDirInside(location.root, location.dir))) return null;
    const stat = await lstatIfPresent(location.file);
    // A symlink is never an object: lstat keeps it from pointing head at another file.
    if (!stat?.isFile()) return null;
    const contentType = (await readSidecar(location.file, stat.size))?.contentType ?? DEFAULT_CONTENT_TYPE;
    return { key, size: stat.size, contentType, lastModified: new Date(stat.mtimeMs) };
  }

  async deleteObject(key: string): Promise<void> {
    const location = await this.#locate(key);
    if (!(await realDirInside(location.root, location.dir))) return;
    const stat = await lstatIfPresent(location.file);
    if (stat && !stat.isDirectory()) await removeIfPresent(location.file);
    await removeIfPresent(sidecarPath(location.file));
    await pruneEmptyDirectories(location.root, location.dir);
  }

  async deleteObjects(keyPrefix: string): Promise<{ deleted: number }> {
    assertValidKeyPrefix(keyPrefix);
    const root = await this.#root();
    const slash = keyPrefix.lastIndexOf("/");
    const dir = slash === -1 ? root : path.resolve(root, ...keyPrefix.slice(0, slash).split("/"));
    const namePrefix = keyPrefix.slice(slash + 1);
    if (!isInside(root, dir, true) || !(await realDirInside(root, dir))) return { deleted: 0 };
    let deleted = 0;
    for (const entry of await readdirIfPresent(dir)) {
      if (!entry.name.startsWith(namePrefix)) continue;
      const target = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        deleted += await countObjects(target);
        await rm(target, { recursive: true, force: true });
      } else {
        await removeIfPresent(target);
        if (entry.isFile() && !isAuxiliaryName(entry.name)) deleted += 1;
      }
    }
    await pruneEmptyDirectories(root, dir);
    return { deleted };
  }

  async presignPut(key: string, options: PresignPutOptions): Promise<PresignedUrl> {
    assertValidKey(key);
    assertValidExpiresIn(options.expiresInSeconds);
    assertValidContentType(options.contentType);
    assertValidContentLength(options.contentLength);
    return this.#presign({
      method: "PUT",
      key,
      expires: this.#expiry(options.expiresInSeconds),
      contentType: options.contentType,
      contentLength: options.contentLength,
    });
  }

  async presignGet(key: string, options: PresignGetOptions): Promise<PresignedUrl> {
    assertValidKey(key);
    assertValidExpiresIn(options.expiresInSeconds);
    const claims: SignedUrlClaims = { method: "GET", key, expires: this.#expiry(options.expiresInSeconds) };
    if (options.fileName !== undefined) {
      assertValidFileName(options.fileName);
      claims.fileName = options.fileName;
    }
    return this.#presign(claims);
  }

  async ping(): Promise<void> {
    try {
      await access(await this.#root(), constants.R_OK | constants.W_OK);
    } catch (error) {
      throw new AppError("unavailable", `Object storage directory is not usable: ${(error as Error).message}`);
    }
  }

  /** Checks a request made with a URL from presignPut/presignGet. The key must already be valid. */
  verifySignedRequest(request: SignedRequest): SignedRequestVerdict {
    return this.#signer.verify({ ...request, now: request.now ?? new Date(this.#now()) });
  }

  #presign(claims: SignedUrlClaims): PresignedUrl {
    return {
      url: `${this.#baseUrl}/${claims.key}?${this.#signer.toQuery(claims)}`,
      expiresAt: new Date(claims.expires * 1000),
    };
  }

  #expiry(expiresInSeconds: number): number {
    return Math.floor(this.#now() / 1000) + expiresInSeconds;
  }

  #root(): Promise<string> {
    if (!this.#realRoot) {
      // Symlinks are judged against the real root, so a root that is itself a link works.
      const attempt = mkdir(this.#rootDir, { recursive: true }).then(() => realpath(this.#rootDir));
      // A failure (disk not mounted yet) must not be remembered forever.
      attempt.catch(() => {
        if (this.#realRoot === attempt) this.#realRoot = undefined;
      });
      this.#realRoot = attempt;
    }
    return this.#realRoot;
  }

  async #locate(key: string): Promise<Location> {
    assertValidKey(key);
    const root = await this.#root();
    const file = path.resolve(root, ...key.split("/"));
    // Validation already rules out escaping; this is the independent second check.
    if (!isInside(root, file)) throw new AppError("invalid_argument", "Invalid object key: escapes the storage directory");
    return { root, file, dir: path.dirname(file) };
  }

  async #ensureDirectory(location: Location): Promise<void> {
    try {
      await mkdir(location.dir, { recursive: true });
    } catch (error) {
      if (hasCode(error, "EEXIST", "ENOTDIR")) {
        throw new AppError("failed_precondition", "Object key conflicts with an existing object that is a prefix of it");
      }
      throw error;
    }
    // mkdir follows existing links; refuse before writing if one led outside.
    await realDirInside(location.root, location.dir);
  }

  async #openExisting(location: Location): Promise<FileHandle | undefined> {
    if (!(await realDirInside(location.root, location.dir))) return undefined;
    try {
      return await openForRead(location.file);
    } catch (error) {
      // ELOOP: the final component is a symlink, which is never an object.
      if (hasCode(error, "ENOENT", "ENOTDIR", "ELOOP", "EISDIR")) return undefined;
      throw error;
    }
  }
}

function notFound(key: string): AppError {
  return new AppError("not_found", "Object not found", { key });
}

function parseBaseUrl(raw: string): string | undefined {
  try {
    const url = new URL(raw);
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.search || url.hash) return undefined;
    return url.href.replace(/\/+$/, "");
  } catch {
    return undefined;
  }
}

async function lstatIfPresent(file: string) {
  try {
    return await lstat(file);
  } catch (error) {
    if (hasCode(error, "ENOENT", "ENOTDIR")) return undefined;
    throw error;
  }
}

async function readdirIfPresent(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (hasCode(error, "ENOENT", "ENOTDIR")) return [];
    throw error;
  }
}
