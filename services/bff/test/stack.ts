import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger, createServiceClient, loadConfig, type ServiceServer } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { MediaService } from "@transcribe/proto/media/v1/media";
import { SPEAKER_WHEEL } from "@transcribe/transcription/engines/local/diarizer";
import { JobRunner } from "@transcribe/transcription/worker/job-runner";
import { type AuthHarness, signInWithMagicLink, startAuth } from "../../auth/test/harness.js";
import { startMedia, type MediaHarness } from "../../media/test/harness.js";
import { migratedDatabase, startTranscriptionApi, testTranscriber, whisperModelsDir, whisperPython } from "../../transcription/test/helpers.js";
import { buildBff } from "../src/app.js";
import { bffConfigSchema } from "../src/config.js";

/**
 * The services every BFF test stack starts, with nothing of ours replaced: the real auth
 * service (magic-link sessions), the real media service, the transcription API over its own
 * migrated database and, when asked, its worker with the real local Whisper engine (and
 * diarizer). The dashboard, developer and model-administration stacks add what they need.
 */
export interface StackOptions {
  /** Names the logger and the temporary folder. */
  name: string;
  logLevel?: string;
  authEnv?: Record<string, string>;
  /** Media's settings; false: no media (the transcription API's media client then points at an address nothing listens on). */
  media?: false | { env?: Record<string, string> };
  /** Start the job worker (needs media); `diarizer` gives it the speaker encoder. */
  worker?: false | { diarizer?: boolean };
  /** Whether the transcription API may download models (into the stack's folder). */
  allowDownload?: boolean;
}

export interface Stack {
  logger: ReturnType<typeof createLogger>;
  dir: string;
  auth: AuthHarness;
  media: MediaHarness | undefined;
  database: Awaited<ReturnType<typeof migratedDatabase>>;
  transcription: ServiceServer;
  worker: JobRunner | undefined;
  /** The engine's model folders (the live worker reads the same). */
  locations: { explicit: Record<string, string>; modelsDir: string; dataModelsDir: string; allowDownload: boolean };
  /** A BFF over the stack's services (AUTH_URL, MEDIA_URL, TRANSCRIPTION_URL set), on `port` or a free one. */
  startBff(env?: Record<string, string>, port?: number): Promise<{ bff: Awaited<ReturnType<typeof buildBff>>; origin: string; close(): Promise<void> }>;
  /** A signed-in user's cookie header. */
  signIn(email: string): Promise<string>;
  /** Closes the BFFs, then `beforeServices` (what a stack added over the services), then the services. */
  stop(beforeServices?: () => Promise<void>): Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const logger = createLogger(`bff-${options.name}-test`, options.logLevel ?? "silent");
  const dir = await mkdtemp(path.join(os.tmpdir(), `bff-${options.name}-`));
  const mediaOptions = options.media === false ? undefined : (options.media ?? {});
  const [auth, media, database] = await Promise.all([
    startAuth(options.authEnv ?? {}),
    mediaOptions ? startMedia(mediaOptions.env ? { env: mediaOptions.env } : {}) : undefined,
    migratedDatabase(),
  ]);
  const locations = { explicit: {}, modelsDir: whisperModelsDir, dataModelsDir: path.join(dir, "models"), allowDownload: options.allowDownload ?? false };
  const { server: transcription } = await startTranscriptionApi(database.db, media?.url ?? "http://127.0.0.1:9", whisperModelsDir, {}, {
    dataModelsDir: locations.dataModelsDir,
    allowDownload: locations.allowDownload,
    engines: ["local"],
  });
  let worker: JobRunner | undefined;
  if (options.worker !== false && options.worker !== undefined) {
    worker = new JobRunner({
      db: database.db,
      media: createServiceClient(MediaService, media!.url),
      logger,
      ...(options.worker.diarizer ? { diarizer: { python: whisperPython, weightsCandidates: [path.join(whisperModelsDir, "speaker-encoder", SPEAKER_WHEEL)] } } : {}),
      createTranscriber: () => testTranscriber({ locations, beamSize: 1, logger }),
      options: { leaseSeconds: 10, pollMs: 200, retryBaseMs: 500, mediaWaitMaxSeconds: 300, timeFactor: 20, concurrency: 1 },
    });
    worker.start();
  }

  const bffs: Array<Awaited<ReturnType<typeof buildBff>>> = [];
  return {
    logger,
    dir,
    auth,
    media,
    database,
    transcription,
    worker,
    locations,
    async startBff(env = {}, port?: number) {
      const listenPort = port ?? (await freePort());
      const bff = await buildBff(
        loadConfig(bffConfigSchema, {
          WEB_DIST_DIR: "/nonexistent",
          AUTH_URL: auth.server.url,
          ...(media ? { MEDIA_URL: media.url } : {}),
          TRANSCRIPTION_URL: transcription.url,
          ...env,
        }),
        logger,
      );
      await bff.listen({ host: "127.0.0.1", port: listenPort });
      bffs.push(bff);
      return {
        bff,
        origin: `http://127.0.0.1:${listenPort}`,
        close: async () => {
          bffs.splice(bffs.indexOf(bff), 1);
          await bff.close();
        },
      };
    },
    signIn: async (email) => (await signInWithMagicLink(auth, email)).cookieHeader(),
    async stop(beforeServices) {
      for (const bff of bffs.splice(0)) await bff.close();
      await beforeServices?.();
      await worker?.stop();
      await transcription.close();
      await media?.stop();
      await auth.close();
      await database.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
