import { existsSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { ConfigError, env } from "@transcribe/platform";
import { z } from "zod";
import { SEGMENTATION_WHEEL_URL, SPEAKER_WHEEL, SPEAKER_WHEEL_URL } from "./engines/local/diarizer.js";
import { parseModelPaths, type ModelLocations } from "./engines/local/models.js";
import { type CloudProviderName, cloudProviderNames, findModel, type ProviderBaseUrlVariable, type ProviderKeyVariable, providers } from "./domain/models.js";

const cacheDir = path.join(homedir(), ".cache", "transcribe");
const defaultVenvPython = path.join(cacheDir, "engine-venv", "bin", "python");
const defaultModelsDir = path.join(cacheDir, "models");

/**
 * Each cloud provider's API key and API address (default: the provider's own; a proxy, or
 * a local server in tests), named by the registry (domain/models.ts).
 */
const providerVariables = Object.fromEntries(
  cloudProviderNames.flatMap((name) => [
    [providers[name].keyVariable, env.optionalString()],
    [providers[name].baseUrlVariable, env.optionalHttpUrl()],
  ]),
) as { [K in ProviderKeyVariable]: ReturnType<typeof env.optionalString> } & { [K in ProviderBaseUrlVariable]: ReturnType<typeof env.optionalHttpUrl> };

/** The configured cloud providers' keys and addresses, by provider. */
export function providerSettings(config: TranscriptionConfig): Record<CloudProviderName, { apiKey: string | undefined; baseURL: string | undefined }> {
  return Object.fromEntries(
    cloudProviderNames.map((name) => [name, { apiKey: config[providers[name].keyVariable], baseURL: config[providers[name].baseUrlVariable] }]),
  ) as Record<CloudProviderName, { apiKey: string | undefined; baseURL: string | undefined }>;
}

/** Variables of both transcription processes (API and worker). */
export const transcriptionConfig = z.object({
  MEDIA_URL: env.httpUrl().default("http://127.0.0.1:7002"),
  /** When set, CreateTranscription and RetryTranscription ask billing for quota first. */
  BILLING_URL: env.optionalHttpUrl(),
  SERVICE_TIMEOUT_MS: env.positiveInt(10_000),
  ...providerVariables,
  /** Python with faster-whisper (services/transcription/engine/setup.sh prints it). */
  WHISPER_PYTHON: z.string().default(existsSync(defaultVenvPython) ? defaultVenvPython : "python3"),
  /** name=/dir pairs, comma-separated: explicit model directories. */
  WHISPER_MODEL_PATHS: env.optionalString(),
  /** A directory of <model name>/ directories; deploy/models/fetch-models.sh fills the default one. */
  WHISPER_MODELS_DIR: z.string().default(defaultModelsDir),
  /** The product's data directory; models are looked for (and downloaded) in <DATA_DIR>/models. */
  DATA_DIR: z.string().default(".data"),
  WHISPER_DOWNLOAD: env.boolean(true),
  /**
   * Memory (MB) of the machines that run local models, against which the catalog refuses a
   * model too big for them; default this machine's (set it where workers run elsewhere).
   */
  WHISPER_WORKER_MEMORY_MB: z.coerce.number().int().positive().optional(),
  /**
   * The local models a user's job may have downloaded on first use (catalog ids,
   * comma-separated); any other model is refused until an administrator downloads it
   * (decision 0033). Default: the small ones. Empty: users never cause a download.
   */
  WHISPER_USER_DOWNLOADS: z
    .string()
    .default("whisper-tiny,whisper-tiny.en,whisper-base,whisper-base.en")
    .transform((value, context) => {
      const ids = value.split(",").map((s) => s.trim()).filter((s) => s.length > 0);
      for (const id of ids) {
        if (findModel(id)?.provider !== "local") context.addIssue({ code: "custom", message: `WHISPER_USER_DOWNLOADS: ${id} is not a local model of the catalog` });
      }
      return new Set(ids) as ReadonlySet<string>;
    }),
  /** Default int8 on the CPU, float16 on CUDA (WHISPER_DEVICE). */
  WHISPER_COMPUTE_TYPE: z.enum(["int8", "int8_float32", "float32", "int16", "float16", "int8_float16", "bfloat16"]).optional(),
  WHISPER_THREADS: z.coerce.number().int().min(0).default(0),
  WHISPER_BEAM_SIZE: z.coerce.number().int().min(1).max(10).default(5),
  /** The diarizer's speaker-encoder weights (Resemblyzer's wheel); default <WHISPER_MODELS_DIR or DATA_DIR/models>/speaker-encoder/. */
  DIARIZATION_WEIGHTS: env.optionalString(),
  /** Fetch the speaker encoder into <DATA_DIR>/models/speaker-encoder/ on first use when it is nowhere else. */
  DIARIZATION_DOWNLOAD: env.boolean(true),
  /** Where to fetch it from (default: PyPI's file URL of Resemblyzer 0.1.4); its sha256 is pinned. */
  DIARIZATION_WEIGHTS_URL: env.optionalHttpUrl(),
  /** Cosine distance above which two voices are different people (decision 0020). */
  DIARIZATION_THRESHOLD: z.coerce.number().positive().max(2).optional(),
});
export type TranscriptionConfig = z.infer<typeof transcriptionConfig>;

/** Worker-only variables. */
export const workerConfig = transcriptionConfig.extend({
  /** Jobs one worker process runs at once (each runs its own engine process). */
  WORKER_CONCURRENCY: env.positiveInt(1),
  /**
   * On SIGTERM the worker takes no new job and lets running ones finish for this long,
   * then hands the rest back (they resume after their stored chunks). 0: at once.
   */
  WORKER_DRAIN_SECONDS: z.coerce.number().int().min(0).default(0),
  /** A lease lasts this long unless renewed (heartbeats every third of it). */
  JOB_LEASE_SECONDS: env.positiveInt(30),
  /**
   * An idle slot looks for a job this often: a job waits on average half of it before it
   * starts, which on a 2-minute file was 4% of the whole (docs/benchmarks.md, decision 0015).
   */
  JOB_POLL_MS: env.positiveInt(250),
  /** Attempts (leases) before a job ends failed. */
  JOB_MAX_ATTEMPTS: env.positiveInt(4),
  /** First retry delay; doubles per attempt, capped at 10 minutes. */
  JOB_RETRY_BASE_MS: env.positiveInt(5_000),
  /** How long a job waits for media to finish processing its file. */
  MEDIA_WAIT_MAX_SECONDS: env.positiveInt(3_600),
  /** How long a local job waits for the speech engine (and default model) to be prepared. */
  ENGINE_WAIT_MAX_SECONDS: env.positiveInt(3_600),
  /** The launcher's provisioning progress (`<DATA_DIR>/engine/status.json`); set by npm start. */
  ENGINE_STATUS_FILE: env.optionalString(),
  TRANSCRIBE_CHUNK_SECONDS: env.positiveInt(300),
  TRANSCRIBE_CHUNK_OVERLAP_SECONDS: z.coerce.number().min(0).default(5),
  /**
   * Windows of one long file (TRANSCRIBE_LONG_FILE_SECONDS) transcribed at once, each by
   * its own engine process with WHISPER_THREADS (or every core) shared among them; 1 runs
   * them one after another. Default 2: the fastest way to decode long files here with no
   * loss of accuracy (docs/benchmarks.md §3b, decision 0026), for one more model in memory.
   */
  TRANSCRIBE_PARALLEL_WINDOWS: env.positiveInt(2),
  /** Files at least this long take the long-file path (parallel windows, or batched decoding); shorter ones one engine. */
  TRANSCRIBE_LONG_FILE_SECONDS: z.coerce.number().min(0).default(240),
  /** Where CTranslate2 runs: cpu, or cuda (the worker refuses to start when the GPU or its libraries are missing). */
  WHISPER_DEVICE: z.enum(["cpu", "cuda"]).default("cpu"),
  /**
   * Batched decoding of long files (decision 0026): VAD-cut stretches decoded this many at
   * once; "auto" chooses from the threads and free memory (8 on 2 cores with base); 0 off.
   * Default: off on the CPU (its WER was worse than the rule allows, docs/benchmarks.md §3b),
   * auto on CUDA.
   */
  WHISPER_BATCH_SIZE: z.union([z.literal("auto"), z.coerce.number().int().min(0).max(64)]).optional(),
  /** Lease only this pool's jobs (cpu or gpu); unset: every job (decision 0026). */
  WORKER_POOL: z.enum(["cpu", "gpu"]).optional(),
  /** A job may run for 120 s + duration × this factor; a chunk for max(60 s, its duration × this factor). */
  TRANSCRIBE_TIME_FACTOR: z.coerce.number().positive().default(4),
});
export type WorkerConfig = z.infer<typeof workerConfig>;

/**
 * The drain must end before the process's own shutdown deadline (SHUTDOWN_GRACE_MS), or
 * the worker is killed mid-drain without handing its jobs back.
 */
export function checkDrain(config: { WORKER_DRAIN_SECONDS: number; SHUTDOWN_GRACE_MS: number }): void {
  if (config.WORKER_DRAIN_SECONDS * 1000 >= config.SHUTDOWN_GRACE_MS) {
    throw new ConfigError([
      `WORKER_DRAIN_SECONDS: must be shorter than SHUTDOWN_GRACE_MS (${config.SHUTDOWN_GRACE_MS} ms), which must leave time to hand unfinished jobs back`,
    ]);
  }
}

/** The compute type the engine loads models in: WHISPER_COMPUTE_TYPE, or the device's usual one. */
export function computeType(config: { WHISPER_COMPUTE_TYPE?: string | undefined; WHISPER_DEVICE: "cpu" | "cuda" }): string {
  return config.WHISPER_COMPUTE_TYPE ?? (config.WHISPER_DEVICE === "cuda" ? "float16" : "int8");
}

/** WHISPER_BATCH_SIZE, or the device's default: off on the CPU, chosen from the hardware on CUDA. */
export function batchSize(config: { WHISPER_BATCH_SIZE?: number | "auto" | undefined; WHISPER_DEVICE: "cpu" | "cuda" }): number | "auto" {
  return config.WHISPER_BATCH_SIZE ?? (config.WHISPER_DEVICE === "cuda" ? "auto" : 0);
}

export function modelLocations(config: TranscriptionConfig): ModelLocations {
  return {
    explicit: parseModelPaths(config.WHISPER_MODEL_PATHS),
    modelsDir: config.WHISPER_MODELS_DIR ? path.resolve(config.WHISPER_MODELS_DIR) : undefined,
    dataModelsDir: path.resolve(config.DATA_DIR, "models"),
    allowDownload: config.WHISPER_DOWNLOAD,
  };
}

/** Where the worker looks for the diarizer's weights, in order. */
export function speakerWeightsCandidates(config: TranscriptionConfig): string[] {
  if (config.DIARIZATION_WEIGHTS) return [path.resolve(config.DIARIZATION_WEIGHTS)];
  return [
    ...(config.WHISPER_MODELS_DIR ? [path.resolve(config.WHISPER_MODELS_DIR, "speaker-encoder", SPEAKER_WHEEL)] : []),
    path.resolve(config.DATA_DIR, "models", "speaker-encoder", SPEAKER_WHEEL),
  ];
}

/** The diarizer's first-run download, unless turned off or an explicit file is configured. */
export function speakerWeightsDownload(config: TranscriptionConfig): { url: string; to: string; segmentationUrl: string } | undefined {
  if (!config.DIARIZATION_DOWNLOAD || config.DIARIZATION_WEIGHTS) return undefined;
  return {
    url: config.DIARIZATION_WEIGHTS_URL ?? SPEAKER_WHEEL_URL,
    to: path.resolve(config.DATA_DIR, "models", "speaker-encoder", SPEAKER_WHEEL),
    segmentationUrl: SEGMENTATION_WHEEL_URL,
  };
}

/** The live worker's variables (decision 0030). */
export const liveConfig = transcriptionConfig.pick({
  WHISPER_PYTHON: true,
  WHISPER_MODEL_PATHS: true,
  WHISPER_MODELS_DIR: true,
  DATA_DIR: true,
  WHISPER_COMPUTE_TYPE: true,
}).extend({
  /** Live sessions one live worker holds at once, each with its own engine process. */
  LIVE_SLOTS: env.positiveInt(1),
  /** A live session is stopped after this much audio. */
  LIVE_MAX_SECONDS: env.positiveInt(3_600),
  /** CTranslate2 threads per live session (0: every core). */
  LIVE_THREADS: z.coerce.number().int().min(0).default(0),
  WHISPER_DEVICE: z.enum(["cpu", "cuda"]).default("cpu"),
});
export type LiveConfig = z.infer<typeof liveConfig>;
