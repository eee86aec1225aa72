import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger, createServiceClient, loadConfig, startServiceServer, type ServiceServer } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { MediaService } from "@transcribe/proto/media/v1/media";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { SPEAKER_WHEEL } from "@transcribe/transcription/engines/local/diarizer";
import { LocalTranscriber } from "@transcribe/transcription/engines/local/local-transcriber";
import { transcriptionServiceImpl } from "@transcribe/transcription/rpc/transcription-service";
import { JobRunner } from "@transcribe/transcription/worker/job-runner";
import { type AuthHarness, signInWithMagicLink, startAuth } from "../../auth/test/harness.js";
import { startMedia, type MediaHarness } from "../../media/test/harness.js";
import { migratedDatabase, whisperModelsDir, whisperPython } from "../../transcription/test/helpers.js";
import { buildBff } from "../src/app.js";
import { bffConfigSchema } from "../src/config.js";

/**
 * The dashboard's product behind the BFF for a test: the real auth service (magic-link
 * sessions), the real media service, the transcription API and worker with the real local
 * Whisper engine and diarizer, and two signed-in users (`alice`, `bob`: cookie headers).
 */
export interface DashboardStack {
  auth: AuthHarness;
  media: MediaHarness;
  database: Awaited<ReturnType<typeof migratedDatabase>>;
  transcription: ServiceServer;
  worker: JobRunner;
  bff: Awaited<ReturnType<typeof buildBff>>;
  origin: string;
  dir: string;
  alice: string;
  bob: string;
  stop(): Promise<void>;
}

/** bffEnv: more BFF settings, e.g. the URL of a service the stack does not start. */
export async function startDashboardStack(name: string, bffEnv: Record<string, string> = {}): Promise<DashboardStack> {
  const logger = createLogger(`bff-${name}-test`, "silent");
  let auth: AuthHarness;
  let media: MediaHarness;
  let database: Awaited<ReturnType<typeof migratedDatabase>>;
  const bffPort = await freePort();
  const origin = `http://127.0.0.1:${bffPort}`;
  const dir = await mkdtemp(path.join(os.tmpdir(), `bff-${name}-`));
  [auth, media, database] = await Promise.all([
    startAuth(),
    startMedia({ env: { STORAGE_PUBLIC_URL: `${origin}/api/v1/storage` } }),
    migratedDatabase(),
  ]);
  const mediaClient = createServiceClient(MediaService, media.url);
  const transcription = await startServiceServer({
    name: "transcription",
    host: "127.0.0.1",
    port: 0,
    logger,
    routes: (router) =>
      router.service(
        TranscriptionService,
        transcriptionServiceImpl({
          db: database.db,
          media: mediaClient,
          catalog: { locations: { explicit: {}, modelsDir: whisperModelsDir, dataModelsDir: path.join(dir, "models"), allowDownload: false }, engines: new Set(["local"]) },
          maxAttempts: 3,
          logger,
        }),
      ),
  });
  const worker = new JobRunner({
    db: database.db,
    media: mediaClient,
    logger,
    diarizer: { python: whisperPython, weightsCandidates: [path.join(whisperModelsDir, "speaker-encoder", SPEAKER_WHEEL)] },
    createTranscriber: () =>
      new LocalTranscriber({
        python: whisperPython,
        locations: { explicit: {}, modelsDir: whisperModelsDir, dataModelsDir: path.join(dir, "models"), allowDownload: false },
        computeType: "int8",
        threads: 2,
        beamSize: 1,
        chunkSeconds: 300,
        overlapSeconds: 5,
        chunkTimeFactor: 20,
        logger,
      }),
    options: { leaseSeconds: 10, pollMs: 200, retryBaseMs: 500, mediaWaitMaxSeconds: 300, timeFactor: 20, concurrency: 1 },
  });
  worker.start();
  const bff = await buildBff(
    loadConfig(bffConfigSchema, {
      WEB_DIST_DIR: "/nonexistent",
      AUTH_URL: auth.server.url,
      MEDIA_URL: media.url,
      TRANSCRIPTION_URL: transcription.url,
      ...bffEnv,
    }),
    logger,
  );
  await bff.listen({ host: "127.0.0.1", port: bffPort });
  const alice = (await signInWithMagicLink(auth, `alice-${name}@example.com`)).cookieHeader();
  const bob = (await signInWithMagicLink(auth, `bob-${name}@example.com`)).cookieHeader();
  return {
    auth,
    media,
    database,
    transcription,
    worker,
    bff,
    origin,
    dir,
    alice,
    bob,
    async stop() {
      await bff.close();
      await worker.stop();
      await transcription.close();
      await media.stop();
      await auth.close();
      await database.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
