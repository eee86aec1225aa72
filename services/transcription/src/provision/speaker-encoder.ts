import { createHash, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream, existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { type ProgressSink, ProvisionError } from "./progress.js";

/**
 * The diarizer's weights (decision 0020), the model-fetch path's second kind of model beside
 * the Whisper weights (model-fetch.ts): one file from PyPI, pinned by sha256.
 */

/** Resemblyzer's wheel holds the speaker encoder; fetch-models.sh puts it in <models>/speaker-encoder/. */
export const SPEAKER_WHEEL = "Resemblyzer-0.1.4-py3-none-any.whl";
/** The wheel's sha256 as PyPI publishes it; a download with any other digest is refused. */
export const SPEAKER_WHEEL_SHA256 = "8f12eb2f1a9982d32e8db7856de754709b59c93a77bcf0ff536584b619a9dd1f";
/** Where the product fetches it on first use (the registry's own file URL). */
export const SPEAKER_WHEEL_URL =
  "https://files.pythonhosted.org/packages/d9/b5/d897d5de5b2123a1ad5d32e8e007d83f76582f5c32c60992577263bd7c7e/Resemblyzer-0.1.4-py3-none-any.whl";

/**
 * Fetches the wheel (the worker on first use, `cli.ts models speaker-encoder` ahead of it):
 * streams it to a temporary file beside the target while hashing it, and renames it into
 * place only when the sha256 matches; two workers racing both end with the same verified file.
 */
export async function fetchSpeakerEncoder(url: string, target: string, signal?: AbortSignal): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  const partial = `${target}.${randomUUID().slice(0, 8)}.partial`;
  try {
    const response = await fetch(url, signal ? { signal } : {});
    if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
    const hash = createHash("sha256");
    const hashing = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), hashing, createWriteStream(partial));
    const digest = hash.digest("hex");
    if (digest !== SPEAKER_WHEEL_SHA256) throw new Error(`checksum mismatch: sha256 ${digest}, expected ${SPEAKER_WHEEL_SHA256}`);
    await rename(partial, target);
  } finally {
    await rm(partial, { force: true });
  }
}

/** Whether `file` is there with the pinned sha256 (a file cut short or replaced is not). */
export async function isVerifiedSpeakerEncoder(file: string): Promise<boolean> {
  if (!existsSync(file)) return false;
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex") === SPEAKER_WHEEL_SHA256;
}

/**
 * Has the verified wheel in <modelsDir>/speaker-encoder/ (ahead of first use: `cli.ts models
 * speaker-encoder`, `npm test`), fetching it only when it is missing or not the pinned file.
 */
export async function ensureSpeakerEncoder(modelsDir: string, options: { url?: string | undefined; onProgress?: ProgressSink } = {}): Promise<string> {
  const target = path.join(modelsDir, "speaker-encoder", SPEAKER_WHEEL);
  const report = options.onProgress ?? (() => {});
  if (await isVerifiedSpeakerEncoder(target)) {
    report({ step: "model", message: `speaker-encoder already in ${target} (verified)` });
    return target;
  }
  const url = options.url || SPEAKER_WHEEL_URL;
  report({ step: "model", message: `downloading the speaker encoder from ${url}` });
  await fetchSpeakerEncoder(url, target).catch((error: Error) => {
    // fetch() says only "fetch failed"; the reason (DNS, TLS, refused) is in its cause.
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
    throw new ProvisionError(`the speaker encoder could not be fetched from ${url}: ${error.message}${cause}`);
  });
  report({ step: "model", message: `speaker-encoder in ${target}` });
  return target;
}
