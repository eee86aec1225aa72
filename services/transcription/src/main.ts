import { createServiceClient, runService } from "@transcribe/platform";
import { BillingService } from "@transcribe/proto/billing/v1/billing";
import { MediaService } from "@transcribe/proto/media/v1/media";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { modelLocations, providerSettings, transcriptionConfig } from "./config.js";
import { migrations } from "./db/migrations.js";
import type { Db } from "./db/repository.js";
import { providerNames } from "./domain/models.js";
import { transcriptionConsumer } from "./events/consumer.js";
import { transcriptionServiceImpl } from "./rpc/transcription-service.js";

/** Jobs end failed after this many leases (the worker's JOB_MAX_ATTEMPTS applies to jobs it creates on retry too). */
const MAX_ATTEMPTS = Number(process.env.JOB_MAX_ATTEMPTS ?? 4) || 4;

await runService({
  name: "transcription",
  defaultPort: 7003,
  config: transcriptionConfig,
  migrations,
  build: ({ config, database, logger }) => {
    const db = database!.db as Db;
    const media = createServiceClient(MediaService, config.MEDIA_URL, { timeoutMs: config.SERVICE_TIMEOUT_MS });
    const billing = config.BILLING_URL
      ? createServiceClient(BillingService, config.BILLING_URL, { timeoutMs: config.SERVICE_TIMEOUT_MS })
      : undefined;
    const impl = transcriptionServiceImpl({
      db,
      media,
      billing,
      catalog: {
        locations: modelLocations(config),
        keys: Object.fromEntries(Object.entries(providerSettings(config)).map(([name, settings]) => [name, settings.apiKey])),
        engines: new Set(providerNames),
        ...(config.WHISPER_WORKER_MEMORY_MB ? { memoryBytes: config.WHISPER_WORKER_MEMORY_MB * 1_000_000 } : {}),
        userDownloads: config.WHISPER_USER_DOWNLOADS,
      },
      maxAttempts: MAX_ATTEMPTS,
      logger,
      python: config.WHISPER_PYTHON,
    });
    return {
      routes: (router) => router.service(TranscriptionService, impl),
      subscriptions: [{ topics: ["media.files", "auth.users"], handler: transcriptionConsumer(db, logger) }],
    };
  },
});
