import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { commonConfigSchema, ConfigError, createLogger, createServiceClient, loadConfigOrExit, runService } from "@transcribe/platform";
import { MediaService } from "@transcribe/proto/media/v1/media";
import { batchSize, checkDrain, computeType, modelLocations, providerSettings, speakerWeightsCandidates, speakerWeightsDownload, workerConfig } from "./config.js";
import { migrations } from "./db/migrations.js";
import type { Db } from "./db/repository.js";
import { isCloudProvider } from "./domain/models.js";
import { TranscriberError, type Transcriber } from "./domain/transcriber.js";
import { cloudAdapters } from "./engines/adapters.js";
import { deviceProblem } from "./engines/local/device-check.js";
import { LocalTranscriber } from "./engines/local/local-transcriber.js";
import { EngineStateMonitor } from "./worker/engine-state.js";
import { JobRunner } from "./worker/job-runner.js";

// Like a bad variable: named, exit 1, before touching the database.
try {
  checkDrain(
    loadConfigOrExit(
      "transcription-worker",
      workerConfig.pick({ WORKER_DRAIN_SECONDS: true }).extend({ SHUTDOWN_GRACE_MS: commonConfigSchema.shape.SHUTDOWN_GRACE_MS }),
    ),
  );
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`transcription-worker: ${error.message}\n`);
  process.exit(1);
}

// A GPU worker without a usable GPU refuses to start (exit 1, the reason named), before
// it leases a job it could only fail.
{
  const device = loadConfigOrExit(
    "transcription-worker",
    workerConfig.pick({ WHISPER_DEVICE: true, WHISPER_COMPUTE_TYPE: true, WHISPER_PYTHON: true }),
  );
  if (device.WHISPER_DEVICE === "cuda") {
    const problem = await deviceProblem(device.WHISPER_PYTHON, "cuda", computeType(device), createLogger("transcription-worker", "warn"));
    if (problem) {
      process.stderr.write(`transcription-worker: WHISPER_DEVICE=cuda, but the GPU cannot be used: ${problem}\n`);
      process.exit(1);
    }
  }
}

// The worker is its own process so it scales apart from the API; it shares the
// transcription database, where it leases jobs.
await runService({
  name: "transcription-worker",
  defaultPort: 7004,
  config: workerConfig,
  migrations,
  build: ({ config, database, logger }) => {
    const db = database!.db as Db;
    const media = createServiceClient(MediaService, config.MEDIA_URL, { timeoutMs: config.SERVICE_TIMEOUT_MS });
    const locations = modelLocations(config);
    const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    // Whether the local engine can run now (and why not): health, the model list and local jobs follow it.
    const engine = new EngineStateMonitor({ python: config.WHISPER_PYTHON, statusFile: config.ENGINE_STATUS_FILE, db, owner, logger });
    const cloudSettings = providerSettings(config);
    const runner = new JobRunner({
      db,
      media,
      logger,
      diarizer: {
        python: config.WHISPER_PYTHON,
        weightsCandidates: speakerWeightsCandidates(config),
        download: speakerWeightsDownload(config),
        threshold: config.DIARIZATION_THRESHOLD,
        logger,
      },
      owner,
      engine,
      createTranscriber: (provider): Transcriber => {
        if (provider === "local") {
          return new LocalTranscriber({
            python: config.WHISPER_PYTHON,
            locations,
            computeType: computeType(config),
            device: config.WHISPER_DEVICE,
            threads: config.WHISPER_THREADS,
            beamSize: config.WHISPER_BEAM_SIZE,
            chunkSeconds: config.TRANSCRIBE_CHUNK_SECONDS,
            overlapSeconds: config.TRANSCRIBE_CHUNK_OVERLAP_SECONDS,
            chunkTimeFactor: config.TRANSCRIBE_TIME_FACTOR,
            parallelWindows: config.TRANSCRIBE_PARALLEL_WINDOWS,
            batchSize: batchSize(config),
            longFileSeconds: config.TRANSCRIBE_LONG_FILE_SECONDS,
            logger,
          });
        }
        const cloud = isCloudProvider(provider) ? cloudSettings[provider] : undefined;
        if (isCloudProvider(provider) && cloud?.apiKey) return cloudAdapters[provider]({ apiKey: cloud.apiKey, baseURL: cloud.baseURL });
        return {
          name: provider,
          transcribe: () => Promise.reject(new TranscriberError("permanent", `The ${provider} engine has no API key on this server`)),
          close: async () => {},
        };
      },
      options: {
        leaseSeconds: config.JOB_LEASE_SECONDS,
        pollMs: config.JOB_POLL_MS,
        retryBaseMs: config.JOB_RETRY_BASE_MS,
        mediaWaitMaxSeconds: config.MEDIA_WAIT_MAX_SECONDS,
        engineWaitMaxSeconds: config.ENGINE_WAIT_MAX_SECONDS,
        timeFactor: config.TRANSCRIBE_TIME_FACTOR,
        concurrency: config.WORKER_CONCURRENCY,
        drainMs: config.WORKER_DRAIN_SECONDS * 1000,
        pool: config.WORKER_POOL,
      },
    });
    return {
      background: [
        {
          start: () => {
            engine.start();
            runner.start();
          },
          stop: async () => {
            await runner.stop();
            await engine.stop();
          },
        },
      ],
    };
  },
});
