import path from "node:path";
import {
  ConfigError,
  createServiceClient,
  installSigningSecret,
  LocalObjectStorage,
  localStorageRoutes,
  type Database,
  type Logger,
  type ServiceParts,
} from "@transcribe/platform";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { downloadBaseUrl, DOWNLOAD_PATH, storageDirOf, type ExportConfig } from "./config.js";
import type { ExportDatabase } from "./db/schema.js";
import { FontConfigError, loadFontSet, renderDocx, renderPdf, type FontSet, type Transcript } from "./domain/index.js";
import { cleanupHandler, cleanupTopics } from "./events/cleanup.js";
import { ExportManager } from "./exports.js";
import { exportRoutes } from "./rpc/export-service.js";
import { fetchExportableTranscript, type TranscriptionClient } from "./transcripts.js";

export interface ExportServiceDependencies {
  config: ExportConfig;
  logger: Logger;
  database: Database<ExportDatabase>;
  /** Defaults to a Connect client for TRANSCRIPTION_URL. */
  transcriptionClient?: TranscriptionClient;
  /** Defaults to loading them as configured (EXPORT_FONT_DIR, EXPORT_FONT_FILES). */
  fonts?: FontSet;
  now?: () => number;
}

export interface ExportService {
  parts: ServiceParts;
  manager: ExportManager;
  storage: LocalObjectStorage;
}

/**
 * Everything the export service runs, built from its configuration: the Connect routes,
 * the signed download routes, the cleanup consumer and the expiry sweep. main.ts hands
 * the parts to runService; tests to startServiceServer.
 */
export async function buildExportService(deps: ExportServiceDependencies): Promise<ExportService> {
  const { config, logger } = deps;
  const secret = config.STORAGE_SIGNING_SECRET ?? (await installSigningSecret(path.join(config.DATA_DIR, "secrets")));
  const fonts = deps.fonts ?? loadFonts(config);
  const missingScripts = fonts.missingScripts();
  if (missingScripts.length > 0) {
    logger.warn({ scripts: missingScripts }, "no font for some scripts: their characters will be empty boxes in PDF exports");
  }
  const storage = new LocalObjectStorage({
    rootDir: storageDirOf(config),
    publicBaseUrl: downloadBaseUrl(config),
    signingSecret: secret,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const client =
    deps.transcriptionClient ??
    createServiceClient(TranscriptionService, config.TRANSCRIPTION_URL, { timeoutMs: config.SERVICE_TIMEOUT_MS });
  const manager = new ExportManager({
    db: deps.database.db,
    storage,
    fonts,
    logger,
    loadTranscript: (userId, transcriptionId, revision) => fetchExportableTranscript(client, userId, transcriptionId, revision),
    urlTtlSeconds: config.EXPORT_URL_TTL_SECONDS,
    ...(deps.now ? { now: () => new Date(deps.now!()) } : {}),
  });

  let sweepTimer: NodeJS.Timeout | undefined;
  let sweeping: Promise<unknown> | undefined;
  const sweep = () => {
    if (sweeping) return; // the previous sweep is still going
    sweeping = manager
      .sweepExpired()
      .then((removed) => removed > 0 && logger.info({ removed }, "expired exports removed"))
      .catch((error: unknown) => logger.error({ err: error }, "sweeping expired exports failed"))
      .finally(() => (sweeping = undefined));
  };

  const parts: ServiceParts = {
    routes: exportRoutes(manager),
    readiness: [{ name: "storage", check: () => storage.ping() }],
    configure: async (app) => {
      await app.register(localStorageRoutes(storage, { prefix: DOWNLOAD_PATH }));
    },
    subscriptions: [{ topics: cleanupTopics, handler: cleanupHandler(deps.database.db, manager) }],
    background: [
      {
        start() {
          sweep();
          sweepTimer = setInterval(sweep, config.EXPORT_SWEEP_INTERVAL_SECONDS * 1000);
          sweepTimer.unref();
          // The first PDF and docx pay for compiling their code and parsing the fonts'
          // tables (a second or more); pay it now rather than in a user's request.
          void warmUp(fonts, logger);
        },
        async stop() {
          clearInterval(sweepTimer);
          await sweeping;
        },
      },
    ],
  };
  return { parts, manager, storage };
}

function loadFonts(config: ExportConfig): FontSet {
  try {
    return loadFontSet({
      files: config.EXPORT_FONT_FILES,
      ...(config.EXPORT_FONT_DIR !== undefined ? { dir: config.EXPORT_FONT_DIR } : {}),
    });
  } catch (error) {
    if (error instanceof FontConfigError) throw new ConfigError(error.problems);
    throw error;
  }
}


async function warmUp(fonts: FontSet, logger: Logger): Promise<void> {
  const started = performance.now();
  const sample: Transcript = {
    id: "warm-up",
    title: "Warm-up",
    duration: 1,
    text: "",
    segments: [{ id: 0, start: 0, end: 1, text: "Hello Grüße Привет Γειά 你好 こんにちは 안녕 مرحبا שלום", words: [] }],
  };
  try {
    await renderPdf(sample, { fonts, includeTimestamps: true });
    await renderDocx(sample, { includeTimestamps: true });
    logger.info({ ms: Math.round(performance.now() - started), fonts: fonts.faces.length }, "pdf and docx renderers ready");
  } catch (error) {
    logger.error({ err: error }, "renderer warm-up failed");
  }
}
