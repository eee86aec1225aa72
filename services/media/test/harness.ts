import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Client } from "@connectrpc/connect";
import {
  createDatabase,
  createLogger,
  createOutboxRelay,
  createServiceClient,
  loadConfig,
  LocalObjectStorage,
  migrateToLatest,
  outboxMigrations,
  type PgBossEventBus,
  startServiceServer,
  type Database,
  type ObjectStorage,
  type ServiceServer,
} from "@transcribe/platform";
import { createTestDatabase, freePort, testEventBus } from "@transcribe/platform/testing";
import { MediaService as MediaRpc } from "@transcribe/proto/media/v1/media";
import type { Kysely } from "kysely";
import { buildMedia, STORAGE_ROUTE_PREFIX, type MediaService } from "../src/app.js";
import { ffmpegPath, ffprobePath } from "../src/testing/tools.js";
import { mediaConfigSchema, type MediaConfig } from "../src/config.js";
import { migrations } from "../src/db/migrations.js";
import type { MediaDatabase } from "../src/db/schema.js";
import { LOCAL_BUCKET, type MediaStorage } from "../src/storage/build.js";

export interface MediaHarness {
  url: string;
  client: Client<typeof MediaRpc>;
  media: MediaService;
  config: MediaConfig;
  database: Database<MediaDatabase>;
  db: Kysely<MediaDatabase>;
  bus: PgBossEventBus;
  /** Local mode: the storage directory, and a clock skew the signed URLs see. */
  storageDir: string;
  clock: { skewMs: number };
  server: ServiceServer;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** A store instead of the local directory (the S3 tests pass MinIO's). */
  storage?: (bucket: string) => Promise<{ storage: ObjectStorage; bucket: string; close(): Promise<void> }>;
  port?: number;
}

/**
 * The real media service in this process, assembled from the same pieces runService
 * uses: its database with migrations, the embedded event bus (pg-boss) with the outbox
 * relay, the Connect server with the signed storage routes, the processing worker and
 * the event subscriptions. Nothing of ours is replaced.
 */
export async function startMedia(options: HarnessOptions = {}): Promise<MediaHarness> {
  const logger = createLogger("media-test", process.env.TEST_LOG_LEVEL ?? "silent");
  const serviceDb = await createTestDatabase("media");
  const eventsDb = await createTestDatabase("media_events");
  const dir = await mkdtemp(path.join(os.tmpdir(), "media-test-"));
  const port = options.port ?? (await freePort());
  const storageDir = path.join(dir, "storage");
  const config = loadConfig(mediaConfigSchema, {
    DATA_DIR: dir,
    STORAGE_DIR: storageDir,
    STORAGE_PUBLIC_URL: `http://127.0.0.1:${port}${STORAGE_ROUTE_PREFIX}`,
    MEDIA_WORK_DIR: path.join(dir, "work"),
    ...options.env,
  });
  const database = createDatabase<MediaDatabase>(serviceDb.url, { max: 8 });
  await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
  const bus = testEventBus(eventsDb.url, logger);
  await bus.start();
  const relay = createOutboxRelay({ database, bus, logger, pollIntervalMs: 100 });

  const clock = { skewMs: 0 };
  let storage: MediaStorage;
  if (options.storage) {
    const s3 = await options.storage(LOCAL_BUCKET);
    storage = { kind: "s3", storage: s3.storage, bucket: s3.bucket, close: s3.close };
  } else {
    storage = {
      kind: "local",
      storage: new LocalObjectStorage({
        rootDir: storageDir,
        publicBaseUrl: config.STORAGE_PUBLIC_URL,
        signingSecret: "test-signing-secret-that-is-long-enough-0123456789",
        now: () => Date.now() + clock.skewMs,
      }),
      bucket: LOCAL_BUCKET,
      close: async () => {},
    };
  }
  // The binaries main.ts would choose (system, else the npm package's), as media runs them.
  const tools = { ffmpeg: ffmpegPath, ffprobe: ffprobePath };
  const media = await buildMedia({ config, logger, database }, { storage, tools, worker: { pollIntervalMs: 200 } });
  const server = await startServiceServer({
    name: "media",
    host: "127.0.0.1",
    port,
    logger,
    ...(media.routes ? { routes: media.routes } : {}),
    ...(media.readiness ? { readiness: media.readiness } : {}),
    ...(media.configure ? { configure: media.configure } : {}),
  });
  await relay.start();
  for (const subscription of media.subscriptions ?? []) await bus.subscribe("media", subscription.topics, subscription.handler);
  for (const job of media.background ?? []) await job.start();

  return {
    url: server.url,
    client: createServiceClient(MediaRpc, server.url, { timeoutMs: 30_000 }),
    media,
    config,
    database,
    db: database.db,
    bus,
    storageDir,
    clock,
    server,
    async stop() {
      await server.close();
      for (const job of [...(media.background ?? [])].reverse()) await job.stop();
      await relay.stop();
      await bus.stop();
      await database.close();
      await serviceDb.drop();
      await eventsDb.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Every file under the local storage directory (objects and their sidecars). */
export async function storedFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/**
 * The objects still stored for a file. A refusal commits FAILED first and deletes the
 * objects right after, so this waits out that gap (briefly) before answering.
 */
export async function objectsLeft(storageDir: string, fileId: string, graceMs = 5_000): Promise<string[]> {
  const deadline = Date.now() + graceMs;
  for (;;) {
    const left = (await storedFiles(storageDir)).filter((f) => f.includes(fileId));
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function waitFor<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
