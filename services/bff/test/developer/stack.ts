import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { startServiceServer, type ServiceServer } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { createDatabase, createOutboxRelay, type HostResolver, migrateToLatest, outboxMigrations, } from "@transcribe/platform";
import { buildWebhooks } from "@transcribe/webhooks/build";
import { webhooksConfigSchema } from "@transcribe/webhooks/config";
import { migrations as webhooksMigrations } from "@transcribe/webhooks/db/migrations";
import { createTestDatabase, testEventBus } from "@transcribe/platform/testing";
import type { AuthHarness } from "../../../auth/test/harness.js";
import type { MediaHarness } from "../../../media/test/harness.js";
import { exportConfigSchema } from "@transcribe/export/config";
import { migrations as exportMigrations } from "@transcribe/export/db/migrations";
import { buildExportService } from "@transcribe/export/service";
import { machineFonts } from "../../../export/test/helpers.js";
import { LiveEngineProcess } from "@transcribe/transcription/engines/local/live-process";
import { liveServiceImpl } from "@transcribe/transcription/live/live-service";
import { SlotPool } from "@transcribe/transcription/live/slots";
import { LiveTranscriptionService } from "@transcribe/proto/live/v1/live";
import { whisperModelsDir, whisperPython } from "../../../transcription/test/helpers.js";
import { startStack } from "../stack.js";


export interface DeveloperStack {
  origin: string;
  auth: AuthHarness;
  media: MediaHarness;
  /** A second BFF over the same services with other settings (e.g. a short sync wait). */
  extraBff(env: Record<string, string>): Promise<string>;
  /** Another BFF over the same services that a test may stop (a restart is stop, then another over the same LIVE_SPOOL_DIR). */
  bffInstance(env: Record<string, string>): Promise<{ origin: string; close(): Promise<void> }>;
  /**
   * Another BFF over the same services as a process of its own (src/main.ts), which a test
   * may kill: a replica beside the others, sharing their LIVE_SPOOL_DIR.
   */
  bffProcess(env: Record<string, string>): Promise<{ origin: string; child: ChildProcess; close(): Promise<void> }>;
  /** The BFFs' LIVE_SPOOL_DIR unless a test gives its own. */
  spoolDir: string;
  signIn(email: string): Promise<string>;
  /** The live worker's slots and engines, when started with `live`. */
  live?: { slots: SlotPool<LiveEngineProcess>; engines: LiveEngineProcess[] };
  /** The live worker's process, when started with `live.process`. */
  liveProcess?: ChildProcess;
  close(): Promise<void>;
}

/**
 * The developer API's whole path with nothing of ours replaced: the real auth service
 * (magic-link sessions, API keys), media (upload, ffprobe, transcode), the transcription
 * API and worker with the real local Whisper engine, the export service (srt, vtt), the BFF.
 */
export interface StackOptions {
  authEnv?: Record<string, string>;
  bffEnv?: Record<string, string>;
  /** Start the webhooks service too, fed by the transcription events over the embedded bus. */
  webhooks?: { env: Record<string, string>; resolver?: HostResolver };
  /**
   * Start the live transcription worker (real streaming engine) with this many slots; with
   * `process`, as its own Node process (src/live-worker.ts), which a test may kill.
   */
  live?: { slots: number; maxSeconds?: number; process?: boolean };
}

export async function startDeveloperStack(options: StackOptions = {}): Promise<DeveloperStack> {
  const stack = await startStack({ name: "developer", logLevel: process.env.TEST_LOG_LEVEL ?? "silent", ...(options.authEnv ? { authEnv: options.authEnv } : {}), worker: {} });
  const { auth, database, transcription, dir, locations, logger } = stack;
  const media = stack.media!;

  const exportDb = await createTestDatabase("export");
  const exportDatabase = createDatabase(exportDb.url, { max: 3 });
  await migrateToLatest(exportDatabase.db, { ...outboxMigrations, ...exportMigrations });
  const exportPort = await freePort();
  const exportService = await buildExportService({
    config: exportConfigSchema.parse({ TRANSCRIPTION_URL: transcription.url, DATA_DIR: path.join(dir, "export"), PUBLIC_BASE_URL: `http://127.0.0.1:${exportPort}` }),
    logger,
    database: exportDatabase as never,
    fonts: machineFonts()!,
  });
  const exportServer: ServiceServer = await startServiceServer({
    name: "export",
    host: "127.0.0.1",
    port: exportPort,
    logger,
    routes: exportService.parts.routes!,
    configure: exportService.parts.configure!,
  });

  const stops: Array<() => Promise<void>> = [];
  let webhooksUrl: string | undefined;
  if (options.webhooks) {
    // transcription's outbox → the embedded bus (pg-boss) → the webhooks service's consumer.
    const eventsDb = await createTestDatabase("developer_events");
    const bus = testEventBus(eventsDb.url, logger);
    await bus.start();
    const transcriptionDatabase = createDatabase(database.url, { max: 2 });
    const relay = createOutboxRelay({ database: transcriptionDatabase, bus, logger, pollIntervalMs: 100 });
    await relay.start();
    const hooksDb = await createTestDatabase("webhooks");
    const hooksDatabase = createDatabase(hooksDb.url, { max: 4 });
    await migrateToLatest(hooksDatabase.db, { ...outboxMigrations, ...webhooksMigrations });
    const built = buildWebhooks({
      config: webhooksConfigSchema.parse(options.webhooks.env),
      logger,
      database: hooksDatabase,
      ...(options.webhooks.resolver ? { resolver: options.webhooks.resolver } : {}),
    });
    const server = await startServiceServer({ name: "webhooks", host: "127.0.0.1", port: 0, logger, routes: built.parts.routes! });
    for (const subscription of built.parts.subscriptions ?? []) await bus.subscribe("webhooks", subscription.topics, subscription.handler);
    for (const job of built.parts.background ?? []) await job.start();
    webhooksUrl = server.url;
    stops.push(async () => {
      await server.close();
      for (const job of built.parts.background ?? []) await job.stop();
      await relay.stop();
      await bus.stop();
      await transcriptionDatabase.close();
      await hooksDatabase.close();
      await hooksDb.drop();
      await eventsDb.drop();
    });
  }

  let live: DeveloperStack["live"];
  let liveUrl: string | undefined;
  let liveProcess: ChildProcess | undefined;
  if (options.live?.process) {
    const port = await freePort();
    liveUrl = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ["--import", "tsx", path.resolve(import.meta.dirname, "../../../transcription/src/live-worker.ts")], {
      env: {
        ...process.env,
        HOST: "127.0.0.1",
        PORT: String(port),
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
        DATA_DIR: path.join(dir, "live-worker"),
        WHISPER_PYTHON: whisperPython,
        WHISPER_MODELS_DIR: whisperModelsDir,
        WHISPER_COMPUTE_TYPE: "int8",
        LIVE_SLOTS: String(options.live.slots),
        LIVE_THREADS: "2",
        LIVE_MAX_SECONDS: String(options.live.maxSeconds ?? 600),
      },
      stdio: ["ignore", "inherit", "inherit"],
    });
    liveProcess = child;
    for (let ready = false; !ready; ) {
      if (child.exitCode !== null) throw new Error(`the live worker exited during start-up (${child.exitCode})`);
      ready = await fetch(`${liveUrl}/readyz`).then((r) => r.ok, () => false);
      if (!ready) await new Promise((r) => setTimeout(r, 200));
    }
    stops.push(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
    });
  } else if (options.live) {
    const engines = Array.from({ length: options.live.slots }, () => new LiveEngineProcess(whisperPython, logger));
    const slots = new SlotPool(engines);
    const server = await startServiceServer({
      name: "transcription-live",
      host: "127.0.0.1",
      port: 0,
      logger,
      routes: (router) =>
        router.service(
          LiveTranscriptionService,
          liveServiceImpl({ slots, locations, maxSeconds: options.live!.maxSeconds ?? 600, threads: 2, computeType: "int8", device: "cpu", logger }),
        ),
    });
    live = { slots, engines };
    liveUrl = server.url;
    stops.push(async () => {
      await server.close();
      for (const engine of engines) engine.kill();
    });
  }

  const spoolDir = path.join(dir, "live-spool");
  const bffEnv = (port: number, env: Record<string, string>): Record<string, string> => ({
    WEB_DIST_DIR: "/nonexistent",
    AUTH_URL: auth.server.url,
    MEDIA_URL: media.url,
    TRANSCRIPTION_URL: transcription.url,
    EXPORT_URL: exportServer.url,
    ...(webhooksUrl ? { WEBHOOKS_URL: webhooksUrl } : {}),
    ...(liveUrl ? { TRANSCRIPTION_LIVE_URL: liveUrl } : {}),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    LIVE_SPOOL_DIR: spoolDir,
    ...env,
  });
  const children = new Set<ChildProcess>();
  async function startBffProcess(env: Record<string, string>) {
    const port = await freePort();
    const child = spawn(process.execPath, ["--import", "tsx", path.resolve(import.meta.dirname, "../../src/main.ts")], {
      env: {
        ...process.env,
        NODE_ENV: "test",
        HOST: "127.0.0.1",
        PORT: String(port),
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
        ...bffEnv(port, env),
      },
      stdio: ["ignore", "inherit", "inherit"],
    });
    children.add(child);
    const origin = `http://127.0.0.1:${port}`;
    for (let ready = false; !ready; ) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the BFF process exited during start-up (${child.exitCode ?? child.signalCode})`);
      ready = await fetch(`${origin}/healthz`).then((r) => r.ok, () => false);
      if (!ready) await new Promise((r) => setTimeout(r, 200));
    }
    return {
      origin,
      child,
      close: async () => {
        children.delete(child);
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      },
    };
  }
  async function startBffInstance(env: Record<string, string>) {
    const port = await freePort();
    const { origin, close } = await stack.startBff(bffEnv(port, env), port);
    return { origin, close };
  }
  const startBff = async (env: Record<string, string>) => (await startBffInstance(env)).origin;
  const origin = await startBff(options.bffEnv ?? {});

  return {
    origin,
    auth,
    media,
    extraBff: startBff,
    bffInstance: startBffInstance,
    bffProcess: startBffProcess,
    spoolDir,
    ...(live ? { live } : {}),
    ...(liveProcess ? { liveProcess } : {}),
    signIn: stack.signIn,
    close: () =>
      stack.stop(async () => {
        for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
        for (const stop of stops) await stop();
        await exportServer.close();
        await exportDatabase.close();
        await exportDb.drop();
      }),
  };
}
