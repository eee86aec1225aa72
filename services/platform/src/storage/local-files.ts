import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, readdir, realpath, rename, rmdir, unlink, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { Transform, type TransformCallback, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import { AppError } from "../errors.js";

/*
 * File-system mechanics of LocalObjectStorage. Auxiliary files carry a "~" in their name,
 * a character valid keys can never contain, so they can never be mistaken for an object
 * or collide with one.
 */

export const sidecarPath = (file: string): string => `${file}~meta.json`;
export const tempPathFor = (file: string): string => `${file}~${randomBytes(8).toString("hex")}.tmp`;
export const isAuxiliaryName = (name: string): boolean => name.includes("~");

// O_NOFOLLOW refuses a symlink planted at the final component; it is 0 (absent) on
// Windows, where the realpath check on the parent directory still applies.
const READ_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

export function isInside(root: string, candidate: string, allowRoot = false): boolean {
  const relative = path.relative(root, candidate);
  if (relative === "") return allowRoot;
  return !path.isAbsolute(relative) && relative !== ".." && !relative.startsWith(`..${path.sep}`);
}

/**
 * Resolves symlinks in `dir` and confirms it is still inside `root`. Undefined when the
 * directory does not exist; throws when a link leads out of the store.
 */
export async function realDirInside(root: string, dir: string): Promise<string | undefined> {
  let real: string;
  try {
    real = await realpath(dir);
  } catch (error) {
    if (hasCode(error, "ENOENT", "ENOTDIR")) return undefined;
    throw error;
  }
  if (!isInside(root, real, true)) {
    throw new AppError("permission_denied", "Object key resolves outside the storage directory");
  }
  return real;
}

export function openForRead(file: string): Promise<FileHandle> {
  return open(file, READ_NO_FOLLOW);
}

export interface Sidecar {
  contentType: string;
  size: number;
}

const sidecarSchema = z.object({ contentType: z.string(), size: z.number() });

/**
 * The sidecar is renamed into place after the data file, so a crash in between can pair
 * new data with an old sidecar; the recorded size catches most such mismatches, and a
 * stale or unreadable sidecar is ignored rather than trusted.
 */
export async function readSidecar(file: string, dataSize: number): Promise<Sidecar | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await openForRead(sidecarPath(file));
    const parsed = sidecarSchema.safeParse(JSON.parse(await handle.readFile("utf8")));
    return parsed.success && parsed.data.size === dataSize ? parsed.data : undefined;
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/**
 * Writes body to a fresh temp file next to `file`, fsyncs it, then renames it over
 * `file`, so the object is either the old one or the complete new one, even after a
 * crash. Nothing is buffered beyond the stream's own chunks.
 *
 * `prepareDirectory` creates the parent; it is run again if the directory vanished
 * before the temp file existed (a concurrent delete prunes empty directories), which is
 * safe because the body has not been touched yet.
 */
export async function writeAtomically(
  file: string,
  body: Readable | Uint8Array,
  expectedLength: number | undefined,
  sidecar: (size: number) => Sidecar,
  prepareDirectory: () => Promise<void>,
): Promise<{ size: number; lastModified: Date }> {
  const dataTemp = tempPathFor(file);
  const metaTemp = tempPathFor(sidecarPath(file));
  try {
    await prepareDirectory();
    const handle = await open(dataTemp, "wx").catch(async (error: unknown) => {
      if (!hasCode(error, "ENOENT")) throw error;
      await prepareDirectory();
      return open(dataTemp, "wx");
    });
    const written = await fillAndClose(handle, body, expectedLength);
    await fillAndClose(await open(metaTemp, "wx"), Buffer.from(JSON.stringify(sidecar(written.size))), undefined);
    await rename(dataTemp, file);
    await rename(metaTemp, sidecarPath(file));
    await syncDirectory(path.dirname(file));
    return written;
  } catch (error) {
    await Promise.all([removeIfPresent(dataTemp), removeIfPresent(metaTemp)]);
    if (hasCode(error, "EISDIR", "ENOTEMPTY", "ENOTDIR")) {
      throw new AppError("failed_precondition", "Object key conflicts with an existing key that is a prefix of it");
    }
    throw error;
  }
}

// Temp files are opened with "wx", which never follows or reuses an existing path, so a
// planted symlink cannot redirect the write.
async function fillAndClose(
  handle: FileHandle,
  body: Readable | Uint8Array,
  expectedLength: number | undefined,
): Promise<{ size: number; lastModified: Date }> {
  try {
    if (body instanceof Uint8Array) {
      if (expectedLength !== undefined && body.byteLength !== expectedLength) {
        throw lengthMismatch(body.byteLength, expectedLength);
      }
      await handle.writeFile(body);
    } else {
      // Writing through the handle ourselves (rather than a WriteStream, which would own and
      // close it) keeps the fd open for the fsync below.
      await pipeline(body, new ByteCounter(expectedLength), async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) await writeFully(handle, chunk);
      });
    }
    await handle.sync();
    const stat = await handle.stat();
    return { size: stat.size, lastModified: new Date(stat.mtimeMs) };
  } finally {
    await handle.close();
  }
}

async function writeFully(handle: FileHandle, chunk: Buffer): Promise<void> {
  for (let offset = 0; offset < chunk.length; ) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

/** Fails as soon as the stream runs past the declared length, not after storing it all. */
class ByteCounter extends Transform {
  bytes = 0;
  constructor(private readonly expected: number | undefined) {
    super();
  }
  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, callback: TransformCallback): void {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    this.bytes += buffer.length;
    if (this.expected !== undefined && this.bytes > this.expected) {
      callback(lengthMismatch(this.bytes, this.expected));
    } else {
      callback(null, buffer);
    }
  }
  override _flush(callback: TransformCallback): void {
    if (this.expected !== undefined && this.bytes !== this.expected) {
      callback(lengthMismatch(this.bytes, this.expected));
    } else {
      callback();
    }
  }
}

function lengthMismatch(actual: number, expected: number): AppError {
  const relation = actual > expected ? "more than" : `only ${actual} of`;
  return new AppError("invalid_argument", `Upload sent ${relation} the ${expected} bytes declared`, {
    reason: "content_length_mismatch",
    expected,
  });
}

// Makes the renames themselves durable. Some platforms cannot open a directory for
// syncing; the data is still consistent there, only possibly older after a power loss.
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // best effort, see above
  } finally {
    await handle?.close();
  }
}

export async function removeIfPresent(file: string): Promise<void> {
  try {
    await unlink(file);
  } catch (error) {
    if (!hasCode(error, "ENOENT", "ENOTDIR")) throw error;
  }
}

/** Removes now-empty directories up to (not including) root, so purged users leave no trace. */
export async function pruneEmptyDirectories(root: string, from: string): Promise<void> {
  for (let dir = from; isInside(root, dir); dir = path.dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return; // not empty, already gone or not ours to remove: any of them ends the walk
    }
  }
}

/** Counts object files under dir, skipping auxiliary files and never following links. */
export async function countObjects(dir: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) count += await countObjects(path.join(dir, entry.name));
    else if (entry.isFile() && !isAuxiliaryName(entry.name)) count += 1;
  }
  return count;
}

export function hasCode(error: unknown, ...codes: string[]): boolean {
  return typeof error === "object" && error !== null && codes.includes((error as { code?: unknown }).code as string);
}
