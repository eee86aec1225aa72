import { localStorageRoutes, type ServiceContext, type ServiceParts } from "@transcribe/platform";
import type { Kysely } from "kysely";
import type { MediaConfig } from "./config.js";
import type { MediaDatabase } from "./db/schema.js";
import { mediaSubscriptions } from "./events/consumers.js";
import { MediaFiles } from "./files.js";
import { notificationRoutes } from "./http/notifications.js";
import type { FfmpegTools } from "./processing/ffmpeg.js";
import { ProcessingWorker, type ProcessingWorkerOptions } from "./processing/worker.js";
import { rpcRoutes } from "./rpc/media-service.js";
import { buildStorage, type MediaStorage } from "./storage/build.js";

/** Where media serves the local store's signed URLs; the BFF forwards the same path. */
export const STORAGE_ROUTE_PREFIX = "/api/v1/storage";

export interface MediaBuildOptions {
  /** A ready store instead of the one the configuration names (tests use a clock they control). */
  storage?: MediaStorage;
  worker?: Partial<Omit<ProcessingWorkerOptions, "files" | "tools">>;
  /** The binaries chosen at start (main.ts); default FFMPEG_PATH/FFPROBE_PATH or the commands on PATH. */
  tools?: FfmpegTools;
}

export interface MediaService extends ServiceParts {
  files: MediaFiles;
  worker: ProcessingWorker;
  storage: MediaStorage;
}

/**
 * Everything media runs, from its configuration and the platform's context: the
 * Connect service, the local store's signed routes (embedded) or the bucket
 * notification endpoint (S3), the processing worker and the event subscriptions.
 */
export async function buildMedia(
  context: Pick<ServiceContext<MediaConfig>, "config" | "logger" | "database">,
  options: MediaBuildOptions = {},
): Promise<MediaService> {
  const { config, logger, database } = context;
  if (!database) throw new Error("media needs its database (DATABASE_URL)");
  const tools: FfmpegTools = options.tools ?? { ffmpeg: config.FFMPEG_PATH ?? "ffmpeg", ffprobe: config.FFPROBE_PATH ?? "ffprobe" };
  const storage = options.storage ?? (await buildStorage(config));
  const files = new MediaFiles({ db: database.db as Kysely<MediaDatabase>, storage, config, logger });
  const worker = new ProcessingWorker({ files, tools, ...options.worker });
  files.wake = () => worker.wake();

  return {
    files,
    worker,
    storage,
    routes: rpcRoutes(files),
    readiness: [{ name: "object-storage", check: () => storage.storage.ping() }],
    configure: async (app) => {
      if (storage.kind === "local") {
        await app.register(
          localStorageRoutes(storage.storage, {
            prefix: STORAGE_ROUTE_PREFIX,
            // The local equivalent of a bucket notification: recorded before the client's 200.
            onPut: (key, size) => files.localObjectPut(key, size),
          }),
        );
      }
      if (config.STORAGE_NOTIFICATION_TOKEN) notificationRoutes(app, files, config.STORAGE_NOTIFICATION_TOKEN);
    },
    background: [
      worker,
      { start: () => {}, stop: () => storage.close() },
    ],
    subscriptions: mediaSubscriptions(files),
  };
}
