import type { Pool } from "../domain/pools.js";
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { timestampNow } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import { enqueueEvents, fromConnectError, newEvent, withSpan, type Logger } from "@transcribe/platform";
import {
  TranscriptionCompletedSchema,
  TranscriptionFailedSchema,
  TranscriptionOutcome,
  TranscriptionStartedSchema,
  TranscriptSpeakerRenamedSchema,
} from "@transcribe/proto/events/v1/events";
import { FileStatus, type File, type MediaService } from "@transcribe/proto/media/v1/media";
import { sql } from "kysely";
import {
  advanceJob,
  advanceTranscription,
  heartbeat,
  insertResult,
  leaseJob,
  loadChunks,
  loadTranscript,
  releaseJob,
  saveChunk,
  type Db,
  type Trx,
  type LeasedJob,
} from "../db/repository.js";
import { startRevisions } from "../db/revisions.js";
import { readVocabulary } from "../db/vocabulary.js";
import { engineTerms, replacementsFor, soundsLikeEdits } from "../domain/vocabulary.js";
import { saveEditIn } from "../editing.js";
import { findModel } from "../domain/models.js";
import { assignSpeakers, turnsFromWords, withoutSpeakers, type SpeakerTurn } from "../domain/speakers.js";
import { settleTranscript, timelineViolations } from "../domain/timeline.js";
import { TranscriberError, type Transcriber, type TranscriptResult } from "../domain/transcriber.js";
import { diarizeFile, type DiarizeOutput, type DiarizerOptions } from "../engines/local/diarizer.js";
import { withVoices } from "../domain/voices.js";
import { keepSpeakerVoices, recogniseVoices } from "../voices.js";
import type { EngineState } from "./engine-state.js";
import { countQueueIn, jobsCompleted, jobsFailed, jobsInProgress } from "./metrics.js";

export interface JobRunnerOptions {
  leaseSeconds: number;
  pollMs: number;
  retryBaseMs: number;
  mediaWaitMaxSeconds: number;
  /** How long a local job waits for the speech engine to be prepared (ENGINE_WAIT_MAX_SECONDS). */
  engineWaitMaxSeconds?: number;
  timeFactor: number;
  concurrency: number;
  /**
   * On stop, how long running jobs may go on before they are handed back: scale-in and
   * rollouts then finish short jobs instead of moving them. 0 hands them back at once.
   */
  drainMs?: number;
  /** WORKER_POOL: lease only this pool's jobs; unset, every job (decision 0026). */
  pool?: Pool | undefined;
}

export interface JobRunnerDeps {
  db: Db;
  media: Client<typeof MediaService>;
  logger: Logger;
  /** One transcriber per concurrent slot (a local engine process holds one job at a time). */
  createTranscriber(provider: string): Transcriber;
  options: JobRunnerOptions;
  /** Identifies this worker in leases; unique per process. */
  owner?: string;
  /** The local diarizer (speakers for local and Groq transcripts, and diarize-only jobs). */
  diarizer?: DiarizerOptions | undefined;
  /** The local engine's state: local jobs wait while it prepares and fail when it cannot run. */
  engine?: { readonly current: EngineState };
}

class LeaseLost extends Error {
  constructor() {
    super("The job's lease was lost (taken over, cancelled or purged)");
  }
}

class ShuttingDown extends Error {
  constructor() {
    super("The worker is stopping");
  }
}

class TimeLimit extends TranscriberError {
  constructor(seconds: number) {
    super("transient", `The transcription took longer than its time limit (${Math.round(seconds)} s)`);
  }
}

/** Retry delay after `attempts` failed leases: base × 2^(attempts−1), capped at 10 minutes, with ±20% jitter. */
export function backoffMs(attempts: number, baseMs: number): number {
  const raw = Math.min(10 * 60_000, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(raw * (0.8 + Math.random() * 0.4));
}

/** A job may run for 120 s plus its audio's duration times the factor: long files get long limits. */
export function timeLimitSeconds(durationSeconds: number, factor: number): number {
  return 120 + Math.max(0, durationSeconds) * factor;
}

/**
 * The worker loop: lease a job from the durable table, keep the lease alive with
 * heartbeats, run the provider, and commit the outcome only while still holding the
 * lease. A worker killed at any moment leaves a lease that expires; another worker
 * (or this one after a restart) takes the job over and resumes after the chunks
 * already stored. Completion is one guarded transaction, so a job completes once.
 */
export class JobRunner {
  readonly owner: string;
  private running = false;
  /** Aborted when stop() begins: idle slots stop polling and take no new job. */
  private readonly draining = new AbortController();
  /** Aborted when the drain ends: jobs still running are handed back. */
  private readonly stopping = new AbortController();
  private loops: Array<Promise<void>> = [];
  private readonly transcribers: Transcriber[] = [];

  constructor(private readonly deps: JobRunnerDeps) {
    this.owner = deps.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    countQueueIn(this.deps.db);
    for (let slot = 0; slot < this.deps.options.concurrency; slot++) this.loops.push(this.loop(slot));
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.draining.abort();
    const loops = Promise.allSettled(this.loops);
    const drainMs = this.deps.options.drainMs ?? 0;
    if (drainMs > 0) {
      this.deps.logger.info({ drainSeconds: drainMs / 1000 }, "worker stopping: no new jobs; running jobs may finish");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([loops, new Promise((resolve) => (timer = setTimeout(resolve, drainMs)))]);
      clearTimeout(timer);
    }
    this.stopping.abort(new ShuttingDown());
    await loops;
    await Promise.allSettled(this.transcribers.map((t) => t.close()));
    countQueueIn(undefined);
  }

  private async loop(slot: number): Promise<void> {
    const transcribers = new Map<string, Transcriber>();
    const transcriberFor = (provider: string) => {
      let t = transcribers.get(provider);
      if (!t) {
        t = this.deps.createTranscriber(provider);
        transcribers.set(provider, t);
        this.transcribers.push(t);
      }
      return t;
    };
    while (this.running) {
      let job: LeasedJob | undefined;
      try {
        job = await leaseJob(this.deps.db, this.owner, this.deps.options.leaseSeconds, this.deps.options.pool);
      } catch (error) {
        this.deps.logger.warn({ err: error, slot }, "could not lease a job");
      }
      if (!job) {
        await sleep(this.deps.options.pollMs, this.draining.signal);
        continue;
      }
      try {
        // One trace per job run: its media calls, queries and events hang together.
        await withSpan("transcription job", { attributes: { "transcription.job_id": job.id, "transcription.attempt": job.attempts } }, () =>
          this.run(job, transcriberFor),
        );
      } catch (error) {
        // Recording the outcome failed too (PostgreSQL restarting): the slot must live on.
        // The job keeps its lease until it expires; then any worker takes it up again.
        this.deps.logger.error({ err: error, slot, jobId: job.id }, "job outcome not recorded; the job is retried when its lease expires");
        await sleep(this.deps.options.pollMs, this.draining.signal);
      }
    }
  }

  /** Runs one leased job to an outcome (completed, failed, released for a retry, or abandoned). */
  async run(job: LeasedJob, transcriberFor: (provider: string) => Transcriber): Promise<void> {
    const { db, logger, options } = this.deps;
    const log = logger.child({ jobId: job.id, transcriptionId: job.transcription_id, attempt: job.attempts });
    const controller = new AbortController();
    const onStop = () => controller.abort(new ShuttingDown());
    this.stopping.signal.addEventListener("abort", onStop, { once: true });
    const beat = setInterval(() => {
      heartbeat(db, job.id, this.owner, options.leaseSeconds)
        .then((held) => {
          if (!held) controller.abort(new LeaseLost());
        })
        .catch((error: unknown) => log.warn({ err: error }, "heartbeat failed"));
    }, Math.max(250, (options.leaseSeconds * 1000) / 3));
    let audioPath: string | undefined;
    jobsInProgress.inc();
    try {
      if (job.attempts > job.max_attempts) {
        await this.fail(job, job.last_error ? `The transcription kept failing: ${job.last_error}` : "The transcription kept failing");
        return;
      }
      const file = await this.fileOf(job);
      if (!file) return;
      if (!(await this.engineReady(job))) return;
      await this.markTranscribing(job, file);
      const limit = timeLimitSeconds(file.duration, options.timeFactor);
      const timer = setTimeout(() => controller.abort(new TimeLimit(limit)), limit * 1000);
      // The diarizer stops in time for the transcript to be saved without speakers.
      const diarizeBy = Date.now() + limit * 1000 - DIARIZER_MARGIN_MS;
      try {
        audioPath = await this.download(job, controller.signal);
        const result =
          job.kind === "diarize"
            ? await this.diarizeOnly(job, audioPath, { duration: file.duration, by: diarizeBy }, controller.signal)
            : await this.withSpeakers(job, await this.transcribe(job, file, audioPath, transcriberFor, controller.signal), audioPath, { duration: file.duration, by: diarizeBy }, controller.signal, log);
        await this.complete(job, result, log);
      } finally {
        clearTimeout(timer);
      }
    } catch (error) {
      await this.onError(job, controller.signal.reason ?? error, error, log);
    } finally {
      jobsInProgress.dec();
      clearInterval(beat);
      this.stopping.signal.removeEventListener("abort", onStop);
      if (audioPath) await rm(audioPath, { force: true }).catch(() => {});
    }
  }

  private async onError(job: LeasedJob, reason: unknown, error: unknown, log: Logger): Promise<void> {
    const { db, options } = this.deps;
    if (reason instanceof LeaseLost) {
      log.warn("lease lost; leaving the job to its new owner");
      return;
    }
    if (reason instanceof ShuttingDown) {
      // Hand the job back at once; the next worker resumes after the stored chunks.
      await releaseJob(db, job.id, this.owner, { delayMs: 0, refundAttempt: true }).catch(() => {});
      log.info("worker stopping; job released");
      return;
    }
    const failure = reason instanceof TranscriberError ? reason : error;
    const message = readable(failure);
    const permanent = failure instanceof TranscriberError && failure.kind === "permanent";
    if (permanent || job.attempts >= job.max_attempts) {
      log.warn({ err: failure }, "job failed");
      await this.fail(job, permanent ? message : `The transcription failed ${job.attempts} times: ${message}`);
      return;
    }
    const delay = failure instanceof TranscriberError && failure.retryAfterMs ? failure.retryAfterMs : backoffMs(job.attempts, options.retryBaseMs);
    log.warn({ err: failure, retryInMs: delay }, "job failed; retrying later");
    await releaseJob(db, job.id, this.owner, { delayMs: delay, error: message });
  }

  /** The job's file from media; undefined when the job was handed back or ended here. */
  private async fileOf(job: LeasedJob): Promise<File | undefined> {
    const { db, media, options } = this.deps;
    let file: File | undefined;
    try {
      file = (await media.getFile({ userId: job.user_id, fileId: job.file_id })).file;
    } catch (error) {
      const appError = fromConnectError(error);
      if (appError.code === "not_found") {
        await this.fail(job, "The audio file no longer exists");
        return undefined;
      }
      throw new TranscriberError("transient", `The media service did not answer: ${appError.message}`);
    }
    if (!file) {
      await this.fail(job, "The audio file no longer exists");
      return undefined;
    }
    if (file.status === FileStatus.FAILED) {
      await this.fail(job, `The file could not be processed${file.error ? `: ${file.error}` : ""}`);
      return undefined;
    }
    if (file.status !== FileStatus.READY) {
      const waited = (Date.now() - job.created_at.getTime()) / 1000;
      if (waited > options.mediaWaitMaxSeconds) {
        await this.fail(job, "The file was not prepared in time");
        return undefined;
      }
      await db.transaction().execute(async (trx) => {
        if (await advanceJob(trx, job.id, this.owner, "processing")) {
          await advanceTranscription(trx, job.transcription_id, job.id, "processing");
        }
      });
      // Waiting for media is not a failed attempt.
      await releaseJob(db, job.id, this.owner, { delayMs: 2_000, refundAttempt: true });
      return undefined;
    }
    return file;
  }

  /**
   * A local job waits (no attempt used) while the engine is being prepared, up to
   * engineWaitMaxSeconds, and ends failed with the reason when it cannot run. Its own time
   * limit starts when it runs.
   */
  private async engineReady(job: LeasedJob): Promise<boolean> {
    const engine = this.deps.engine;
    if (!engine || findModel(job.settings.model)?.provider !== "local") return true;
    const { state, reason } = engine.current;
    if (state === "ready") return true;
    if (state === "unavailable") {
      await this.fail(job, `The local speech engine cannot run on this server: ${reason}`);
      return false;
    }
    const waited = (Date.now() - job.created_at.getTime()) / 1000;
    if (waited > (this.deps.options.engineWaitMaxSeconds ?? 3600)) {
      await this.fail(job, `The speech engine was not ready in time (${reason})`);
      return false;
    }
    await releaseJob(this.deps.db, job.id, this.owner, { delayMs: 2_000, refundAttempt: true });
    return false;
  }

  private async markTranscribing(job: LeasedJob, file: File): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      const moved = await advanceJob(trx, job.id, this.owner, "transcribing", { started_at: sql`coalesce(started_at, now())` });
      if (moved) await advanceTranscription(trx, job.transcription_id, job.id, "transcribing");
      await trx
        .updateTable("transcriptions")
        .set({ duration: file.duration, processed_key: file.processedKey ?? null, raw_key: file.rawKey })
        .where("id", "=", job.transcription_id)
        .execute();
      const first = await trx
        .updateTable("transcription_jobs")
        .set({ started_event_sent: true })
        .where("id", "=", job.id)
        .where("started_event_sent", "=", false)
        .executeTakeFirst();
      if (Number(first.numUpdatedRows) === 1) await enqueueEvents(trx, [newEvent(TranscriptionStartedSchema, { jobId: job.id })]);
    });
  }

  /** Fetches the audio through a short-lived URL from media into a temporary file. */
  private async download(job: LeasedJob, signal: AbortSignal): Promise<string> {
    let url: string;
    try {
      url = (await this.deps.media.getAudioUrl({ userId: job.user_id, fileId: job.file_id }, { signal })).url;
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      const appError = fromConnectError(error);
      if (appError.code === "not_found") throw new TranscriberError("permanent", "The audio file no longer exists");
      throw new TranscriberError("transient", `The media service did not answer: ${appError.message}`);
    }
    const dir = path.join(tmpdir(), "transcribe-worker");
    await mkdir(dir, { recursive: true });
    const target = path.join(dir, `${job.id}-${randomUUID().slice(0, 8)}`);
    let response: Response;
    try {
      response = await fetch(url, { signal });
    } catch (error) {
      if (signal.aborted) throw signal.reason;
      throw new TranscriberError("transient", `The audio could not be fetched: ${(error as Error).message}`);
    }
    if (!response.ok || !response.body) {
      throw new TranscriberError(response.status >= 500 ? "transient" : "permanent", `The audio could not be fetched (HTTP ${response.status})`);
    }
    await pipeline(Readable.fromWeb(response.body as WebReadableStream<Uint8Array>), createWriteStream(target), { signal });
    return target;
  }

  private async transcribe(
    job: LeasedJob,
    file: File,
    audioPath: string,
    transcriberFor: (provider: string) => Transcriber,
    signal: AbortSignal,
  ): Promise<TranscriptResult> {
    const { db, logger } = this.deps;
    const settings = job.settings;
    const model = findModel(settings.model);
    if (!model) throw new TranscriberError("permanent", `Unknown model: ${settings.model}`);
    const completedChunks = await loadChunks(db, job.id);
    if (completedChunks.size > 0) logger.info({ jobId: job.id, chunks: completedChunks.size }, "resuming after stored chunks");
    let progressWrites = Promise.resolve();
    return transcriberFor(model.provider).transcribe({
      audioPath,
      durationSeconds: file.duration,
      engineModel: job.engine_model,
      settings,
      vocabulary: engineTerms(settings.vocabulary ?? [], settings.useVocabulary === false ? [] : await readVocabulary(db, job.user_id), settings.language),
      signal,
      completedChunks,
      onProgress: (message) => {
        // In order (the last word, "done", must not be overtaken), and best effort: a lost
        // write only delays what the user reads, never the job.
        progressWrites = progressWrites.then(() =>
          db
            .updateTable("transcriptions")
            .set({ progress: message ?? null })
            .where("id", "=", job.transcription_id)
            .execute()
            .then(
              () => {},
              (error: unknown) => logger.warn({ jobId: job.id, err: error }, "progress not stored"),
            ),
        );
      },
      onChunk: async (chunk, total) => {
        const held = await saveChunk(db, job.id, this.owner, chunk);
        if (!held) throw new LeaseLost();
        logger.info({ jobId: job.id, chunk: chunk.index + 1, of: total }, "chunk transcribed");
      },
    });
  }

  /**
   * Speakers for a fresh transcript: the provider's own (ElevenLabs) or the local
   * diarizer's turns joined to the words by time. Speakers never fail a transcript
   * (decision 0020): whatever stops the diarizer (missing weights, undecodable audio, its
   * time limit, a crash) completes the transcript without speakers and says why. Only the
   * job's own stop (lease lost, worker stopping, the job's time limit) goes on up.
   */
  private async withSpeakers(job: LeasedJob, result: TranscriptResult, audioPath: string, time: DiarizeTime, signal: AbortSignal, log: Logger): Promise<TranscriptResult> {
    if (!job.settings.diarize) return result;
    if (result.providerSpeakers) {
      const turns = turnsFromWords(result.segments.flatMap((s) => s.words));
      const { renamed: _ids, ...joined } = assignSpeakers(withoutSpeakers(result.segments), turns);
      return { ...result, ...joined };
    }
    try {
      const found = await this.turnsOf(job, audioPath, time, signal);
      return { ...result, ...withVoices(assignSpeakers(result.segments, found.turns), found.embeddings) };
    } catch (error) {
      if (signal.aborted) throw error;
      const reason = readable(error);
      const note = reason.startsWith(SPEAKERS_FAILED) ? reason : `${SPEAKERS_FAILED}: ${reason}`;
      log.warn({ err: error }, "transcript completed without speakers");
      return { ...result, speakers: [], speakersNote: note };
    }
  }

  /** A diarize-only job: the current result again, with speakers; nothing is transcribed. */
  private async diarizeOnly(job: LeasedJob, audioPath: string, time: DiarizeTime, signal: AbortSignal): Promise<TranscriptResult> {
    const row = await this.deps.db.selectFrom("transcriptions").select("result_id").where("id", "=", job.transcription_id).executeTakeFirst();
    const current = row?.result_id ? await loadTranscript(this.deps.db, row.result_id) : undefined;
    if (!current) throw new TranscriberError("permanent", "The transcript to identify speakers in no longer exists");
    const found = await this.turnsOf(job, audioPath, time, signal);
    return { ...current, ...withVoices(assignSpeakers(withoutSpeakers(current.segments), found.turns), found.embeddings) };
  }

  private async turnsOf(job: LeasedJob, audioPath: string, time: DiarizeTime, signal: AbortSignal): Promise<{ turns: SpeakerTurn[]; embeddings: DiarizeOutput["embeddings"] }> {
    if (!this.deps.diarizer) throw new TranscriberError("permanent", `${SPEAKERS_FAILED}: this worker has no diarizer configured`);
    const out = await diarizeFile(this.deps.diarizer, {
      audioPath,
      durationSeconds: time.duration,
      notAfter: time.by,
      minSpeakers: job.settings.minSpeakers,
      maxSpeakers: job.settings.maxSpeakers,
      signal,
    });
    this.deps.logger.info({ jobId: job.id, speakers: out.speakers.length, ...out.stats }, "speakers identified");
    return { turns: out.turns, embeddings: out.embeddings };
  }

  /**
   * Every transcript is stored here, whichever engine, mode or speaker split made it: the
   * one place its timeline rule (domain/timeline.ts) is enforced for all of them.
   */
  private async complete(job: LeasedJob, assembled: TranscriptResult, log: Logger): Promise<void> {
    const breaches = timelineViolations(assembled.segments, assembled.duration);
    // Worth knowing where it happens (decoders differ by CPU); the rule fixes it either way.
    if (breaches.length > 0) log.info({ breaches: breaches.length, first: breaches[0] }, "transcript timeline settled");
    const result = settleTranscript(assembled);
    const resultId = randomUUID();
    const committed = await this.deps.db.transaction().execute(async (trx) => {
      const moved = await advanceJob(trx, job.id, this.owner, "completed", { finished_at: sql`now()`, last_error: null });
      if (!moved) return false;
      // The voice library names known voices before the result is written (decision 0031).
      const named = await recogniseVoices(trx, job.user_id, result);
      await insertResult(trx, resultId, job.transcription_id, job.id, named);
      await keepSpeakerVoices(trx, job.user_id, resultId, named);
      const current = await advanceTranscription(trx, job.transcription_id, job.id, "completed", { result_id: resultId, error: null });
      if (current) {
        const number = await startRevisions(trx, { transcriptionId: job.transcription_id, userId: job.user_id, resultId, language: result.language, segments: result.segments });
        await this.applySoundsLike(trx, job, number, result, log);
      }
      await trx.deleteFrom("transcription_job_chunks").where("job_id", "=", job.id).execute();
      await enqueueEvents(trx, [
        job.kind === "diarize"
          ? // Nothing was transcribed (no minutes used); exports of the old speakers are stale.
            newEvent(TranscriptSpeakerRenamedSchema, { transcriptId: job.transcription_id, userId: job.user_id, speakerId: "" })
          : newEvent(TranscriptionCompletedSchema, {
              status: TranscriptionOutcome.SUCCESS,
              jobId: job.id,
              transcriptionId: job.transcription_id,
              userId: job.user_id,
              audioDuration: result.duration,
            }),
      ]);
      return true;
    });
    if (committed) {
      jobsCompleted.inc();
      log.info(
        { segments: result.segments.length, language: result.language, dropped: result.dropped.length },
        "transcription completed",
      );
    } else {
      log.warn("job no longer ours at completion; result discarded");
    }
  }

  /**
   * The user's "sounds like" spellings replaced by their terms, as a revision of kind
   * 'vocabulary' over the engine's (decision 0029): word timings kept, shown in the
   * history, undone by restoring the original.
   */
  private async applySoundsLike(trx: Trx, job: LeasedJob, baseRevision: number, result: TranscriptResult, log: Logger): Promise<void> {
    if (job.settings.useVocabulary === false) return;
    const terms = replacementsFor(await readVocabulary(trx, job.user_id), result.language);
    const segments = result.segments.map((s, id) => ({ id, start: s.start, end: s.end, text: s.text, words: s.words, ...(s.speaker ? { speaker: s.speaker } : {}) }));
    const edits = soundsLikeEdits(segments, terms);
    if (!edits) return;
    const saved = await saveEditIn(trx, { userId: job.user_id, id: job.transcription_id, baseRevision, edits, kind: "vocabulary" });
    log.info({ revision: saved.revision.number, segments: saved.changed.length }, "vocabulary replacements applied");
  }

  private async fail(job: LeasedJob, message: string): Promise<void> {
    const failed = await this.deps.db.transaction().execute(async (trx) => {
      const moved = await advanceJob(trx, job.id, this.owner, "failed", { finished_at: sql`now()`, last_error: message });
      if (!moved) return false;
      await advanceTranscription(trx, job.transcription_id, job.id, "failed", { error: message });
      await trx.deleteFrom("transcription_job_chunks").where("job_id", "=", job.id).execute();
      await enqueueEvents(trx, [
        newEvent(TranscriptionCompletedSchema, {
          status: TranscriptionOutcome.FAILED,
          jobId: job.id,
          transcriptionId: job.transcription_id,
          userId: job.user_id,
          error: message,
          audioDuration: 0,
        }),
        newEvent(TranscriptionFailedSchema, { jobId: job.id, transcriptionId: job.transcription_id, userId: job.user_id, error: message, failedAt: timestampNow() }),
      ]);
      return true;
    });
    if (failed) jobsFailed.inc();
  }
}

const SPEAKERS_FAILED = "Speakers could not be identified";
const DIARIZER_MARGIN_MS = 15_000;

/** The audio's seconds (the diarizer's own limit grows with them) and when the job's limit falls. */
interface DiarizeTime {
  duration: number;
  by: number;
}

function readable(error: unknown): string {
  if (error instanceof TranscriberError) return error.message;
  if (error instanceof Error && error.name === "AppError") return error.message;
  return "An unexpected error stopped the transcription";
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
