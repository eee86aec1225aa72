import { runService } from "@transcribe/platform";
import { LiveTranscriptionService } from "@transcribe/proto/live/v1/live";
import { computeType, liveConfig } from "./config.js";
import { LiveEngineProcess } from "./engines/local/live-process.js";
import { parseModelPaths } from "./engines/local/models.js";
import { liveServiceImpl } from "./live/live-service.js";
import { countLiveSessionsIn } from "./live/metrics.js";
import { SlotPool } from "./live/slots.js";
import path from "node:path";

// The live worker is its own process (decision 0030): it holds engines for sessions in
// flight rather than leasing jobs, and scales on open sessions. It needs no database: a
// session's audio is kept by the caller (the BFF), which makes it a file and a job.
await runService({
  name: "transcription-live",
  defaultPort: 7010,
  config: liveConfig,
  build: ({ config, logger }) => {
    const engines = Array.from({ length: config.LIVE_SLOTS }, () => new LiveEngineProcess(config.WHISPER_PYTHON, logger));
    const slots = new SlotPool(engines);
    countLiveSessionsIn(slots);
    const impl = liveServiceImpl({
      slots,
      locations: {
        explicit: parseModelPaths(config.WHISPER_MODEL_PATHS),
        modelsDir: config.WHISPER_MODELS_DIR ? path.resolve(config.WHISPER_MODELS_DIR) : undefined,
        dataModelsDir: path.resolve(config.DATA_DIR, "models"),
        allowDownload: false,
      },
      maxSeconds: config.LIVE_MAX_SECONDS,
      threads: config.LIVE_THREADS,
      computeType: computeType(config),
      device: config.WHISPER_DEVICE,
      logger,
    });
    return {
      routes: (router) => router.service(LiveTranscriptionService, impl),
      readiness: [{ name: "live-slots", check: async () => ({ free: slots.size - slots.inUse, size: slots.size }) }],
      background: [{ start: () => {}, stop: async () => engines.forEach((engine) => engine.kill()) }],
    };
  },
});
