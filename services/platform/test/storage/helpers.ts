import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { LocalObjectStorage } from "../../src/storage/local.js";

export const SECRET = "test-signing-secret-0123456789abcdef";
export const PUBLIC_BASE_URL = "http://127.0.0.1:8080/storage";

/** A store inside `<sandbox>/root`, with a sibling `<sandbox>/outside` that must stay untouched. */
export async function makeSandbox() {
  const base = await mkdtemp(path.join(tmpdir(), "objstore-"));
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  await mkdir(outside);
  const clock = { now: Date.now() };
  const storage = new LocalObjectStorage({
    rootDir: root,
    publicBaseUrl: PUBLIC_BASE_URL,
    signingSecret: SECRET,
    now: () => clock.now,
  });
  await storage.ping();
  return {
    base,
    root,
    outside,
    clock,
    storage,
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}

/** Every file and directory under dir, relative, sorted: the way tests prove nothing else was written. */
export async function listTree(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true });
    return entries.map((entry) => entry.split(path.sep).join("/")).sort();
  } catch {
    return [];
  }
}

/** A deterministic multi-chunk stream produced lazily, plus its expected digest and size. */
export function generatedStream(totalBytes: number, chunkBytes = 64 * 1024) {
  const seed = randomBytes(chunkBytes);
  const hash = createHash("sha256");
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < totalBytes; offset += chunkBytes) {
    const chunk = Buffer.from(seed.subarray(0, Math.min(chunkBytes, totalBytes - offset)));
    chunk.writeUInt32BE(offset >>> 0, 0); // makes every chunk distinct so misordering shows
    hash.update(chunk);
    chunks.push(chunk);
  }
  return {
    sha256: hash.digest("hex"),
    size: totalBytes,
    stream: () => Readable.from(chunks, { objectMode: false }),
    bytes: () => Buffer.concat(chunks),
  };
}

export async function sha256Of(stream: Readable): Promise<{ sha256: string; size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest("hex"), size };
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
