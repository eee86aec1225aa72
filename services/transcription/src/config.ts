import { existsSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { env } from "@transcribe/platform";
import { z } from "zod";
import { parseModelPaths, type ModelLocations } from "./engines/local/models.js";

const cacheDir = path.join(homedir(), ".cache", "transcribe");
const defaultVenvPython = path.join(cacheDir, "engine-venv", "bin", "python");
const defaultModelsDir = path.join(cacheDir, "models");

/** Variables of both transcription processes (API and worker). */
export const transcriptionConfig = z.object({
  MEDIA_URL: env.httpUrl().default("http://127.0.0.1:7002"),
  /** When set, CreateTranscription and RetryTranscription ask billing for quota first. */
  BILLING_URL: env.optionalHttpUrl(),
  SERVICE_TIMEOUT_MS: env.positiveInt(10_000),
  GROQ_API_KEY: env.optionalString(),
  /** Default https://api.groq.com (a proxy, or a local server in tests). */
  GROQ_BASE_URL: env.optionalHttpUrl(),
  ELEVENLABS_API_KEY: env.optionalString(),
  /** Default https://api.elevenlabs.io. */
  ELEVENLABS_BASE_URL: env.optionalHttpUrl(),
  /** Python with faster-whisper (services/transcription/engine/setup.sh prints it). */
  WHISPER_PYTHON: z.string().default(existsSync(defaultVenvPython) ? defaultVenvPython : "python3"),
  /** name=/dir pairs, comma-separated: explicit model directories. */
  WHISPER_MODEL_PATHS: env.optionalString(),
  /** A directory of <model name>/ directories; deploy/models/fetch-models.sh fills the default one. */
  WHISPER_MODELS_DIR: z.string().default(defaultModelsDir),
  /** The product's data directory; models are looked for (and downloaded) in <DATA_DIR>/models. */
  DATA_DIR: z.string().default(".data"),
  WHISPER_DOWNLOAD: env.boolean(true),
  WHISPER_COMPUTE_TYPE: z.enum(["int8", "int8_float32", "float32", "int16"]).default("int8"),
  WHISPER_THREADS: z.coerce.number().int().min(0).default(0),
  WHISPER_BEAM_SIZE: z.coerce.number().int().min(1).max(10).default(5),
});
export type TranscriptionConfig = z.infer<typeof transcriptionConfig>;

/** Worker-only variables. */
export const workerConfig = transcriptionConfig.extend({
  /** Jobs one worker process runs at once (each runs its own engine process). */
  WORKER_CONCURRENCY: env.positiveInt(1),
  /** A lease lasts this long unless renewed (heartbeats every third of it). */
  JOB_LEASE_SECONDS: env.positiveInt(30),
  JOB_POLL_MS: env.positiveInt(1000),
  /** Attempts (leases) before a job ends failed. */
  JOB_MAX_ATTEMPTS: env.positiveInt(4),
  /** First retry delay; doubles per attempt, capped at 10 minutes. */
  JOB_RETRY_BASE_MS: env.positiveInt(5_000),
  /** How long a job waits for media to finish processing its file. */
  MEDIA_WAIT_MAX_SECONDS: env.positiveInt(3_600),
  TRANSCRIBE_CHUNK_SECONDS: env.positiveInt(300),
  TRANSCRIBE_CHUNK_OVERLAP_SECONDS: z.coerce.number().min(0).default(5),
  /** A job may run for 120 s + duration × this factor; a chunk for max(60 s, its duration × this factor). */
  TRANSCRIBE_TIME_FACTOR: z.coerce.number().positive().default(4),
});
export type WorkerConfig = z.infer<typeof workerConfig>;

export function modelLocations(config: TranscriptionConfig): ModelLocations {
  return {
    explicit: parseModelPaths(config.WHISPER_MODEL_PATHS),
    modelsDir: config.WHISPER_MODELS_DIR ? path.resolve(config.WHISPER_MODELS_DIR) : undefined,
    dataModelsDir: path.resolve(config.DATA_DIR, "models"),
    allowDownload: config.WHISPER_DOWNLOAD,
  };
}
