import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { ffmpegPath } from "@transcribe/media/testing/tools";
import { FileStatus } from "@transcribe/proto/media/v1/media";
import { TranscriptionStatus, type Transcription } from "@transcribe/proto/transcription/v1/transcription";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  engineUnavailable,
  type migratedDatabase,
  type startMediaServer,
  type startTranscriptionApi,
  synthesize,
  wavSeconds,
  wordErrorRate,
  workerTestStack,
} from "./helpers.js";

/**
 * The worker's side of hostile media: audio media accepted (silence, a fraction of a
 * second, noise, a WAV cut short) and a file media refuses while a job waits for it.
 * The worker is src/worker.ts in its own process, as in production: every job must end
 * completed or failed with a reason, and the same process must then run a normal job.
 */

const serviceDir = path.resolve(import.meta.dirname, "..");
const SCRIPT = "The committee met on Tuesday morning to review the budget for the new library.";
const TERMINAL = [TranscriptionStatus.COMPLETED, TranscriptionStatus.FAILED];

describe.skipIf(engineUnavailable)("hostile audio at the transcription worker (real engine, worker process)", () => {
  let database: Awaited<ReturnType<typeof migratedDatabase>>;
  const cleanup: Array<() => Promise<unknown>> = [];
  let media: Awaited<ReturnType<typeof startMediaServer>>;
  let api: Awaited<ReturnType<typeof startTranscriptionApi>>;
  let worker: ChildProcess;
  let dir: string;
  let output = "";
  const userId = `user-${randomUUID()}`;
  const outcomes: Array<{ case: string; status: string; detail: string }> = [];

  beforeAll(async () => {
    const stack = await workerTestStack(cleanup, "hostile-audio", { WHISPER_BEAM_SIZE: "1", JOB_RETRY_BASE_MS: "500" });
    ({ database, media, api, dir } = stack);
    worker = spawn(process.execPath, ["--import", "tsx", "src/worker.ts"], {
      cwd: serviceDir,
      env: { ...process.env, ...stack.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-100_000));
    worker.stdout!.on("data", keep);
    worker.stderr!.on("data", keep);
  }, 120_000);

  afterAll(async () => {
    if (outcomes.length > 0) console.table(outcomes);
    if (worker && worker.exitCode === null) {
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      worker.kill("SIGTERM");
      await exited;
    }
    for (const step of cleanup.reverse()) await step().catch(() => {});
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  function ffmpeg(args: string[]): string {
    const out = args[args.length - 1]!;
    execFileSync(ffmpegPath, ["-nostdin", "-v", "error", "-y", ...args]);
    return out;
  }

  async function transcribe(name: string, audioPath: string | undefined, options: { status?: FileStatus; duration?: number } = {}) {
    const file = media.addFile({ userId, duration: options.duration ?? (audioPath ? wavSeconds(audioPath) : 3), ...(audioPath ? { audioPath } : {}), ...(options.status ? { status: options.status } : {}) });
    const created = await api.client.createTranscription({ userId, fileId: file.id, settings: { model: "whisper-tiny.en", language: "en" } });
    return { name, file, created };
  }

  async function settled(job: Awaited<ReturnType<typeof transcribe>>, timeoutMs = 180_000): Promise<Transcription> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { transcription } = await api.client.getTranscription({ userId, id: job.created.transcriptionId });
      if (transcription && TERMINAL.includes(transcription.status)) {
        outcomes.push({
          case: job.name,
          status: TranscriptionStatus[transcription.status],
          detail: transcription.error ?? JSON.stringify(transcription.result?.text ?? "").slice(0, 60),
        });
        expect(worker.exitCode, `the worker exited during "${job.name}":\n${output.slice(-3000)}`).toBeNull();
        return transcription;
      }
      if (Date.now() > deadline) throw new Error(`"${job.name}" did not end in ${timeoutMs} ms:\n${output.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  it("completes silence, a fraction of a second and noise without inventing speech", { timeout: 400_000 }, async () => {
    const silence = ffmpeg(["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "6", "-c:a", "pcm_s16le", path.join(dir, "silence.wav")]);
    const noise = ffmpeg(["-f", "lavfi", "-i", "anoisesrc=r=16000:a=0.3:d=5", "-ac", "1", "-c:a", "pcm_s16le", path.join(dir, "noise.wav")]);
    const blip = (await synthesize("Yes.", { dir })).path;
    const jobs = [await transcribe("6 s of digital silence", silence), await transcribe("white noise, 5 s", noise), await transcribe(`"Yes." (${wavSeconds(blip).toFixed(2)} s)`, blip)];
    const results: Transcription[] = [];
    for (const job of jobs) {
      const done = await settled(job);
      expect([TranscriptionStatus[done.status], done.error]).toEqual(["COMPLETED", undefined]);
      results.push(done);
    }
    const [silent, noisy] = results as [Transcription, Transcription];
    // Whisper hallucinates on silence; the guard drops stock phrases and no-speech segments.
    expect(silent.result!.text.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(3);
    expect(noisy.result!.text.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(10);
  });

  it("transcribes what arrived of a WAV cut short (its header promises twice as much)", { timeout: 300_000 }, async () => {
    const speech = await synthesize(SCRIPT, { dir });
    const bytes = await readFile(speech.path);
    const cut = path.join(dir, "cut.wav");
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const done = await settled(await transcribe("wav with half its bytes", cut, { duration: speech.duration / 2 }));
    expect(done.status).toBe(TranscriptionStatus.COMPLETED);
    expect(done.result!.text.length).toBeGreaterThan(0);
  });

  it("fails a waiting job with media's reason when media refuses the file, instead of waiting forever", { timeout: 120_000 }, async () => {
    const job = await transcribe("file media refuses while the job waits", undefined, { status: FileStatus.PROCESSING });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const { transcription } = await api.client.getTranscription({ userId, id: job.created.transcriptionId });
      if (transcription?.status === TranscriptionStatus.PROCESSING) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const stored = media.files.get(job.file.id)!;
    stored.file.status = FileStatus.FAILED;
    stored.file.error = "The file is damaged or incomplete";
    const done = await settled(job, 60_000);
    expect(done.status).toBe(TranscriptionStatus.FAILED);
    expect(done.error).toBe("The file could not be processed: The file is damaged or incomplete");
  });

  it("is the same worker process afterwards: a normal job completes and nothing is left running", { timeout: 300_000 }, async () => {
    const speech = await synthesize(SCRIPT, { dir });
    const done = await settled(await transcribe("ordinary speech afterwards", speech.path));
    expect(done.status).toBe(TranscriptionStatus.COMPLETED);
    expect(wordErrorRate(SCRIPT, done.result!.text)).toBeLessThanOrEqual(0.2);
    expect(worker.exitCode).toBeNull();
    const open = await sql<{ status: string; n: number }>`
      select status, count(*)::int as n from transcription_jobs
      where status not in ('completed', 'failed') group by status`.execute(database.db);
    expect(open.rows).toEqual([]);
    // Every failure carries its reason.
    const failed = await database.db.selectFrom("transcription_jobs").select(["id", "last_error"]).where("status", "=", "failed").execute();
    for (const row of failed) expect(row.last_error).toBeTruthy();
  });
});
