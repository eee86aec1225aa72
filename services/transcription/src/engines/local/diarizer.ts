import { spawn } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { createWriteStream, existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import type { SpeakerTurn } from "../../domain/speakers.js";
import { TranscriberError } from "../../domain/transcriber.js";

/** The diarizer (see engine/diarizer.py and decision 0020). */
export const diarizerScript = path.resolve(import.meta.dirname, "../../../engine/diarizer.py");

/** Resemblyzer's wheel holds the speaker encoder; fetch-models.sh puts it in <models>/speaker-encoder/. */
export const SPEAKER_WHEEL = "Resemblyzer-0.1.4-py3-none-any.whl";
/** The wheel's sha256 as PyPI publishes it; a download with any other digest is refused. */
export const SPEAKER_WHEEL_SHA256 = "8f12eb2f1a9982d32e8db7856de754709b59c93a77bcf0ff536584b619a9dd1f";
/** Where the product fetches it on first use (the registry's own file URL). */
export const SPEAKER_WHEEL_URL =
  "https://files.pythonhosted.org/packages/d9/b5/d897d5de5b2123a1ad5d32e8e007d83f76582f5c32c60992577263bd7c7e/Resemblyzer-0.1.4-py3-none-any.whl";

export interface DiarizerOptions {
  python: string;
  /** DIARIZATION_WEIGHTS, else <WHISPER_MODELS_DIR>/speaker-encoder/…, else <DATA_DIR>/models/speaker-encoder/…. */
  weightsCandidates: string[];
  /** The speaker-distance threshold; undefined keeps the tuned default. */
  threshold?: number | undefined;
  /** Seconds between embedding windows; undefined keeps the engine's default (benchmarks vary it). */
  step?: number | undefined;
  /**
   * When no candidate exists, fetch the wheel from this URL into `downloadTo` (checked
   * against SPEAKER_WHEEL_SHA256) before the first diarization; undefined: no download.
   */
  download?: { url: string; to: string } | undefined;
}

/**
 * The first-run path, like the Whisper weights' download: streams the wheel to a temporary
 * file beside the target while hashing it, and renames it into place only when the sha256
 * matches; two workers racing both end with the same verified file.
 */
export async function downloadSpeakerWeights(url: string, target: string, signal?: AbortSignal): Promise<void> {
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

export type WeightsResolution = { kind: "found"; path: string } | { kind: "missing"; message: string };

export function resolveSpeakerWeights(candidates: readonly string[]): WeightsResolution {
  const found = candidates.find((c) => existsSync(c));
  if (found) return { kind: "found", path: found };
  return {
    kind: "missing",
    message:
      `the speaker model is not installed on this server (put ${SPEAKER_WHEEL} in ${candidates.map((c) => path.dirname(c)).join(" or ")}, ` +
      `or run deploy/models/fetch-models.sh speaker-encoder)`,
  };
}

export interface DiarizeOutput {
  turns: SpeakerTurn[];
  speakers: string[];
  stats: { duration: number; speech_seconds: number; windows: number; run_seconds: number; cpu_seconds: number; max_rss_mb: number };
}

/**
 * Runs the diarizer over a whole file in its own short-lived Python process (it holds the
 * file's embeddings only, and its memory is returned when it exits). Missing weights are
 * a permanent error with the message a user reads.
 */
export function diarizeFile(
  options: DiarizerOptions,
  request: { audioPath: string; minSpeakers?: number | undefined; maxSpeakers?: number | undefined; signal: AbortSignal },
): Promise<DiarizeOutput> {
  return weightsFor(options, request.signal).then((found) => run(options, found, request));
}

async function weightsFor(options: DiarizerOptions, signal: AbortSignal): Promise<string> {
  const weights = resolveSpeakerWeights(options.weightsCandidates);
  if (weights.kind === "found") return weights.path;
  if (!options.download) throw new TranscriberError("permanent", `Speakers could not be identified: ${weights.message}`);
  try {
    await downloadSpeakerWeights(options.download.url, options.download.to, signal);
    return options.download.to;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new TranscriberError(
      "permanent",
      `Speakers could not be identified: ${weights.message}; the download from ${options.download.url} failed (${(error as Error).message})`,
    );
  }
}

function run(
  options: DiarizerOptions,
  weightsPath: string,
  request: { audioPath: string; minSpeakers?: number | undefined; maxSpeakers?: number | undefined; signal: AbortSignal },
): Promise<DiarizeOutput> {
  const weights = { path: weightsPath };
  const payload = JSON.stringify({
    audio: request.audioPath,
    weights: weights.path,
    min_speakers: request.minSpeakers ?? null,
    max_speakers: request.maxSpeakers ?? null,
    threshold: options.threshold ?? null,
    step: options.step ?? null,
  });
  return new Promise((resolve, reject) => {
    const child = spawn(options.python, ["-u", diarizerScript, payload], { stdio: ["ignore", "pipe", "pipe"], signal: request.signal });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4000)));
    child.on("error", (error) => {
      if (request.signal.aborted) return reject(request.signal.reason);
      reject(new TranscriberError("transient", `The diarizer could not start: ${error.message}`));
    });
    child.on("close", (code) => {
      if (request.signal.aborted) return reject(request.signal.reason);
      const line = stdout.trim().split("\n").pop() ?? "";
      let reply: { ok: boolean; result?: DiarizeOutput; error?: { kind: string; message: string } };
      try {
        reply = JSON.parse(line);
      } catch {
        return reject(new TranscriberError("transient", `The diarizer stopped (exit ${code}): ${stderr.trim().split("\n").pop() ?? ""}`));
      }
      if (reply.ok && reply.result) return resolve(reply.result);
      const kind = reply.error?.kind ?? "engine";
      const message = reply.error?.message ?? "unknown error";
      reject(new TranscriberError(kind === "engine" ? "transient" : "permanent", `Speakers could not be identified: ${message}`));
    });
  });
}
