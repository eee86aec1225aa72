import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { createLogger, createServiceClient, migrateToLatest, outboxMigrations, startServiceServer, type ServiceServer } from "@transcribe/platform";
import { espeakNg, ffmpegPath, mediaToolsEnv, mediaToolsProblem } from "@transcribe/media/testing/tools";
import { wavSeconds } from "@transcribe/media/testing/voices";
import { createTestDatabase, skipWhen } from "@transcribe/platform/testing";
import { FileSchema, FileStatus, MediaService, type File } from "@transcribe/proto/media/v1/media";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { align } from "../../../bench/lib/wer.js";
import { migrations } from "../src/db/migrations.js";
import type { TranscriptionDB } from "../src/db/schema.js";
import { LocalTranscriber } from "../src/engines/local/local-transcriber.js";
import { isModelDir } from "../src/engines/local/models.js";
import { defaultModelsDir, defaultVenvDir, venvPython } from "../src/provision/provision.js";
import { transcriptionServiceImpl } from "../src/rpc/transcription-service.js";

export const logger = createLogger("transcription-test", process.env.TEST_LOG_LEVEL === "debug" ? "debug" : "silent");

// ---- the real engine: where its Python and weights are --------------------------------

// Where `npm test` (scripts/prepare-tests.ts) and `npm start` put them, unless told otherwise.
export const whisperPython = process.env.WHISPER_PYTHON || venvPython(process.env.WHISPER_VENV || defaultVenvDir);
export const whisperModelsDir = process.env.WHISPER_MODELS_DIR || defaultModelsDir;

/**
 * The shared AMI meeting excerpts (`../shared/data/diarization` beside the clone, or AMI_DIR),
 * or undefined where they are not: tests that need them skip there, and fail in CI.
 */
export const amiDir: string | undefined =
  process.env.AMI_DIR ??
  [path.resolve(import.meta.dirname, "../../../../shared/data/diarization"), "/work/shared/data/diarization"].find((dir) => existsSync(dir));

/** Why the shared AMI excerpt `name` (.wav and .rttm) is not here, or undefined when it is. */
export function amiMissing(name: string): string | undefined {
  return amiDir && existsSync(path.join(amiDir, `${name}.wav`)) ? undefined : `the shared AMI excerpt ${name} (../shared/data/diarization)`;
}

/** Whether what a test needs is here; else the test is skipped, or fails in CI, where all of it is required. */
export function present(ctx: { skip(): void }, missing: string | undefined): boolean {
  if (!missing) return true;
  if (process.env.CI) throw new Error(`${missing} is required in CI`);
  ctx.skip();
  return false;
}

function engineProblem(): string | undefined {
  if (!existsSync(whisperPython)) return `no engine Python at ${whisperPython} (npm test prepares it; or set WHISPER_PYTHON)`;
  for (const model of ["tiny.en", "base"]) {
    if (!isModelDir(path.join(whisperModelsDir, model))) {
      return `no Whisper ${model} weights in ${whisperModelsDir} (npm test fetches them; or set WHISPER_MODELS_DIR)`;
    }
  }
  // ffmpeg: the one media would run (system, else the npm package's); espeak-ng: the
  // system's, else its WebAssembly build (@transcribe/media/testing/tools).
  return mediaToolsProblem;
}

/**
 * Whether the real-engine tests run. Without the engine or weights they are skipped
 * with the reason printed, except in CI (CI is set), where that is a failure.
 */
export const engineUnavailable: string | undefined = (() => {
  const problem = skipWhen("engine", engineProblem());
  if (problem && process.env.CI) throw new Error(`The real Whisper engine is required in CI: ${problem}`);
  if (problem) console.warn(`[transcription tests] skipping real-engine tests: ${problem}`);
  return problem;
})();

/** The local engine as the worker runs it (int8, beam 5, 5-minute windows), on the test models; overrides per test. */
export function testTranscriber(overrides: Partial<ConstructorParameters<typeof LocalTranscriber>[0]> = {}): LocalTranscriber {
  return new LocalTranscriber({
    python: whisperPython,
    locations: { explicit: {}, modelsDir: whisperModelsDir, dataModelsDir: "/nonexistent/models", allowDownload: false },
    computeType: "int8",
    threads: 2,
    beamSize: 5,
    chunkSeconds: 300,
    overlapSeconds: 5,
    chunkTimeFactor: 20,
    logger,
    ...overrides,
  });
}

/** The job worker's timings in the tests: short leases and polls, generous time per audio second on a loaded machine. */
export const testWorkerOptions = { leaseSeconds: 10, pollMs: 200, retryBaseMs: 300, mediaWaitMaxSeconds: 600, timeFactor: 20, concurrency: 1 };

// ---- speech -------------------------------------------------------------------------

export { wavSeconds };

/** Synthesizes speech with espeak-ng into a 16 kHz mono WAV; returns its path and duration. */
export async function synthesize(text: string, options: { voice?: string; speed?: number; dir?: string } = {}) {
  const dir = options.dir ?? (await mkdtemp(path.join(tmpdir(), "transcribe-speech-")));
  const raw = path.join(dir, `speech-${Date.now()}-${Math.random().toString(36).slice(2, 8)}-raw.wav`);
  const out = raw.replace("-raw.wav", ".wav");
  await espeakNg(["-v", options.voice ?? "en-us", "-s", String(options.speed ?? 160), "-w", raw, text]);
  execFileSync(ffmpegPath, ["-nostdin", "-v", "error", "-y", "-i", raw, "-ar", "16000", "-ac", "1", out]);
  return { path: out, duration: wavSeconds(out) };
}

/** Concatenates WAV files (same format) with ffmpeg. */
export function concatWavs(inputs: string[], out: string): { path: string; duration: number } {
  const list = `${out}.txt`;
  execFileSync("sh", ["-c", `printf '%s\\n' ${inputs.map((i) => `"file '${i}'"`).join(" ")} > "${list}"`]);
  execFileSync(ffmpegPath, ["-nostdin", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", list, "-c", "copy", out]);
  return { path: out, duration: wavSeconds(out) };
}

export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/o'clock/g, "oclock")
    .replace(/[^\p{L}\p{N}' ]+/gu, " ")
    .split(/\s+/)
    .map((w) => w.replace(/^'+|'+$/g, ""))
    .filter(Boolean);
}

/** Word error rate: word-level Levenshtein distance over the reference's length. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const r = words(reference);
  const h = words(hypothesis);
  let previous = Array.from({ length: h.length + 1 }, (_, j) => j);
  for (let i = 1; i <= r.length; i++) {
    const current = [i];
    for (let j = 1; j <= h.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[h.length]! / Math.max(1, r.length);
}

// ---- a database ------------------------------------------------------------------------

export async function migratedDatabase() {
  const database = await createTestDatabase("transcription");
  const pool = new pg.Pool({ connectionString: database.url, max: 6 });
  pool.on("error", () => {});
  const db = new Kysely<TranscriptionDB>({ dialect: new PostgresDialect({ pool }) });
  await migrateToLatest(db, { ...outboxMigrations, ...migrations });
  return {
    db,
    url: database.url,
    async close() {
      await db.destroy();
      await database.drop();
    },
  };
}

// ---- media, as a real Connect server ------------------------------------------------------

export interface StoredFile {
  userId: string;
  file: File;
  /** Local file served as the audio URL. */
  audioPath?: string;
}

/**
 * A real platform Connect server implementing MediaService.GetFile and GetAudioUrl (the
 * media service's own RPCs were not implemented when these tests were written), with
 * the audio served over HTTP at the URL GetAudioUrl returns.
 */
export async function startMediaServer(): Promise<{ server: ServiceServer; url: string; files: Map<string, StoredFile>; addFile(input: { userId: string; audioPath?: string; duration: number; status?: FileStatus; fileName?: string }): File; close(): Promise<void> }> {
  const files = new Map<string, StoredFile>();
  let base = "";
  const server = await startServiceServer({
    name: "media-test",
    host: "127.0.0.1",
    port: 0,
    logger,
    routes: (router) =>
      router.service(MediaService, {
        async getFile(request) {
          const stored = files.get(request.fileId);
          if (!stored || stored.userId !== request.userId) {
            const { AppError } = await import("@transcribe/platform");
            throw new AppError("not_found", "File not found");
          }
          return { file: stored.file };
        },
        async getAudioUrl(request) {
          const stored = files.get(request.fileId);
          if (!stored || stored.userId !== request.userId) {
            const { AppError } = await import("@transcribe/platform");
            throw new AppError("not_found", "File not found");
          }
          return { url: `${base}/test-audio/${request.fileId}`, expiresAt: timestampFromDate(new Date(Date.now() + 600_000)) };
        },
      }),
    configure: (app) => {
      app.get<{ Params: { id: string } }>("/test-audio/:id", async (request, reply) => {
        const stored = files.get(request.params.id);
        if (!stored) return reply.code(404).send({ error: "not found" });
        // A known file without audio yet stands for a storage outage.
        if (!stored.audioPath) return reply.code(503).send({ error: "unavailable" });
        return reply.type("audio/wav").send(readFileSync(stored.audioPath));
      });
    },
  });
  base = server.url;
  return {
    server,
    url: server.url,
    files,
    addFile({ userId, audioPath, duration, status, fileName }) {
      const id = crypto.randomUUID();
      const file = create(FileSchema, {
        id,
        fileName: fileName ?? "speech.wav",
        fileSize: BigInt(audioPath ? statSync(audioPath).size : 1000),
        contentType: "audio/wav",
        duration,
        rawKey: `raw/${userId}/${id}.wav`,
        processedKey: `processed/${userId}/${id}.wav`,
        status: status ?? FileStatus.READY,
        createdAt: timestampFromDate(new Date()),
      });
      files.set(id, { userId, file, ...(audioPath ? { audioPath } : {}) });
      return file;
    },
    close: () => server.close(),
  };
}

/**
 * A migrated database, the media stand-in and the transcription API over them, shared by
 * the tests of one file: starts them in its beforeAll, stops them in its afterAll.
 */
export function transcriptionApiForFile() {
  const stack = {} as {
    database: Awaited<ReturnType<typeof migratedDatabase>>;
    media: Awaited<ReturnType<typeof startMediaServer>>;
    api: Awaited<ReturnType<typeof startTranscriptionApi>>;
  };
  beforeAll(async () => {
    stack.database = await migratedDatabase();
    stack.media = await startMediaServer();
    stack.api = await startTranscriptionApi(stack.database.db, stack.media.url);
  });
  afterAll(async () => {
    await stack.api?.close();
    await stack.media?.close();
    await stack.database?.close();
  });
  return stack;
}

/** The transcription API as a real Connect server, and a client for it. */
export async function startTranscriptionApi(
  db: Kysely<TranscriptionDB>,
  mediaUrl: string,
  catalogModelsDir = whisperModelsDir,
  keys: { groqKey?: string; elevenLabsKey?: string } = {},
  /** Where downloads land and whether they may happen; the engine's Python that runs them. */
  models: { dataModelsDir?: string; allowDownload?: boolean; memoryBytes?: number; python?: string; engines?: readonly string[] } = {},
) {
  const media = createServiceClient(MediaService, mediaUrl);
  const server = await startServiceServer({
    name: "transcription-test",
    host: "127.0.0.1",
    port: 0,
    logger,
    routes: (router) =>
      router.service(
        TranscriptionService,
        transcriptionServiceImpl({
          db,
          media,
          catalog: {
            locations: {
              explicit: {},
              modelsDir: catalogModelsDir,
              dataModelsDir: models.dataModelsDir ?? path.join(tmpdir(), "no-such-data", "models"),
              allowDownload: models.allowDownload ?? false,
            },
            engines: new Set(models.engines ?? ["local", "groq", "elevenlabs"]),
            ...(models.memoryBytes ? { memoryBytes: models.memoryBytes } : {}),
            keys: { groq: keys.groqKey, elevenlabs: keys.elevenLabsKey },
          },
          maxAttempts: 3,
          logger,
          python: models.python ?? whisperPython,
        }),
      ),
  });
  return { server, client: createServiceClient(TranscriptionService, server.url), close: () => server.close() };
}

/**
 * Word alignment of a transcript against its script (Levenshtein backtrace), with the
 * runs of 3+ consecutive inserted or deleted words: a seam that duplicated words shows
 * as an insertion run, one that lost words as a deletion run.
 */
export function alignmentRuns(reference: string, hypothesis: string, timed?: Array<{ word: string; start: number }>) {
  const r = words(reference);
  const h = words(hypothesis);
  const times = timed?.flatMap((w) => words(w.word).map(() => w.start));
  const at = (index: number) => (times && times.length === h.length ? ` (at ${times[Math.min(Math.max(index, 0), times.length - 1)]!.toFixed(1)} s)` : "");
  // The same alignment the benchmarks report with (bench/lib/wer.ts).
  const ops = align(r, h);
  const runs: string[] = [];
  const placed: Array<{ at: number; text: string }> = [];
  let ri = 0;
  let hi = 0;
  let k = 0;
  while (k < ops.length) {
    const op = ops[k]!;
    let n = 0;
    while (k + n < ops.length && ops[k + n] === op) n++;
    if ((op === "i" || op === "d") && n >= 3) {
      const text = op === "i" ? `inserted: ${h.slice(hi, hi + n).join(" ")}${at(hi)}` : `lost: ${r.slice(ri, ri + n).join(" ")}${at(hi - 1)}`;
      runs.push(text);
      const index = Math.min(Math.max(op === "i" ? hi : hi - 1, 0), (times?.length ?? 1) - 1);
      if (times && times.length === h.length) placed.push({ at: times[index]!, text });
    }
    if (op === "=" || op === "s") {
      ri += n;
      hi += n;
    } else if (op === "i") hi += n;
    else ri += n;
    k += n;
  }
  return { wer: ops.filter((op) => op !== "=").length / Math.max(1, r.length), runs, placed };
}

// ---- the worker as its own process -------------------------------------------------------

const serviceDir = path.resolve(import.meta.dirname, "..");

/**
 * What a test of a worker process stands on: a migrated transcription database, an events
 * database, the media stand-in and the transcription API, a temporary directory, and the
 * worker's environment for them (the engine from the shared cache, no downloads, 2 threads,
 * a 200 ms poll; `env` adds or overrides). Each part is closed by `cleanup`, last first.
 */
export async function workerTestStack(cleanup: Array<() => Promise<unknown>>, name: string, env: Record<string, string> = {}) {
  const database = await migratedDatabase();
  cleanup.push(() => database.close());
  const events = await createTestDatabase("events");
  cleanup.push(() => events.drop());
  const media = await startMediaServer();
  cleanup.push(() => media.close());
  const api = await startTranscriptionApi(database.db, media.url);
  cleanup.push(() => api.close());
  const dir = await mkdtemp(path.join(tmpdir(), `transcribe-${name}-`));
  const workerEnv: Record<string, string> = {
    DATABASE_URL: database.url,
    EVENT_BUS_DATABASE_URL: events.url,
    MEDIA_URL: media.url,
    PORT: "0",
    LOG_LEVEL: "info",
    NODE_ENV: "test",
    DATA_DIR: dir,
    WHISPER_PYTHON: whisperPython,
    WHISPER_MODELS_DIR: whisperModelsDir,
    WHISPER_DOWNLOAD: "false",
    WHISPER_THREADS: "2",
    JOB_POLL_MS: "200",
    // What the embedded launcher hands the worker (cloud engines cut windows with it).
    ...mediaToolsEnv,
    ...env,
  };
  return { database, events, media, api, dir, env: workerEnv };
}

/** `src/worker.ts` as a child process with `env` on top of this one's; its output lines go to `output`. */
export function startWorker(env: Record<string, string>, output: string[]): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "src/worker.ts"], {
    cwd: serviceDir,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d: Buffer) => output.push(d.toString()));
  child.stderr!.on("data", (d: Buffer) => output.push(d.toString()));
  return child;
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

/** Polls `probe` every 100 ms until it answers something other than undefined. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}
