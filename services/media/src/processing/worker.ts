import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { AppError, enqueueEvents, newEvent, type Logger } from "@transcribe/platform";
import { FileUploadedSchema, StorageAction } from "@transcribe/proto/events/v1/events";
import { fileTypeFromFile } from "file-type";
import { sql } from "kysely";
import { claimForProcessing, extendLease, findAbandonedUploads, findFile, releaseLease } from "../db/files.js";
import type { FileRow } from "../db/schema.js";
import { checkSize, keys, messages, planChunks, type AllowedContentType } from "../domain/rules.js";
import type { MediaFiles } from "../files.js";
import {
  cutProcessed,
  killRunningTools,
  NotMediaError,
  probe,
  TooManyStreamsError,
  transcodeToProcessed,
  wavDeclaredSeconds,
  type FfmpegTools,
} from "./ffmpeg.js";
import { fetchToFile } from "./import-url.js";

export interface ProcessingWorkerOptions {
  files: MediaFiles;
  tools: FfmpegTools;
  concurrency?: number;
  /** A worker that dies leaves its record to another after this long. */
  leaseMs?: number;
  /** Polling when nothing woke the worker. */
  pollIntervalMs?: number;
  /** Tries before a record that keeps hitting transient faults is failed. */
  maxAttempts?: number;
  /** How long after its link expired an upload that never arrived is removed. */
  abandonedGraceMs?: number;
  sweepIntervalMs?: number;
}

/**
 * Containers the service accepts, as file-type names them from the first bytes. The
 * declared type is not trusted; these magic numbers and ffprobe decide.
 */
const SNIFFED_EXTENSIONS = new Set(["mp3", "wav", "m4a", "mp4", "m4b", "flac", "ogg", "oga", "opus", "webm", "mka"]);

/**
 * Turns received uploads into verified, normalised audio: PROCESSING records are
 * leased (so a crashed worker's record is taken up again), verified, transcoded and
 * chunked, then READY (with FileUploaded) or FAILED (with the reason, objects deleted).
 */
export class ProcessingWorker {
  readonly #files: MediaFiles;
  readonly #tools: FfmpegTools;
  readonly #concurrency: number;
  readonly #leaseMs: number;
  readonly #pollMs: number;
  readonly #maxAttempts: number;
  readonly #abandonedGraceMs: number;
  readonly #sweepMs: number;
  readonly #workDir: string;
  #running = false;
  #stopRequested = false;
  #active = new Set<Promise<void>>();
  readonly #waiters = new Set<() => void>();
  #loops: Promise<void>[] = [];
  #lastSweep = 0;

  constructor(options: ProcessingWorkerOptions) {
    this.#files = options.files;
    this.#tools = options.tools;
    this.#concurrency = options.concurrency ?? options.files.config.MEDIA_PROCESSING_CONCURRENCY;
    this.#leaseMs = options.leaseMs ?? 10 * 60_000;
    this.#pollMs = options.pollIntervalMs ?? 2_000;
    this.#maxAttempts = options.maxAttempts ?? 3;
    this.#abandonedGraceMs = options.abandonedGraceMs ?? 60 * 60_000;
    this.#sweepMs = options.sweepIntervalMs ?? 60_000;
    this.#workDir = options.files.config.MEDIA_WORK_DIR ?? path.join(os.tmpdir(), "transcribe-media");
  }

  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    await mkdir(this.#workDir, { recursive: true });
    for (let i = 0; i < this.#concurrency; i++) this.#loops.push(this.#loop());
  }

  wake(): void {
    for (const waiter of [...this.#waiters]) waiter();
  }

  /**
   * Stops taking records and lets running jobs finish for up to `graceMs`; then their
   * ffmpeg is killed and the records wait for their lease to expire, when any replica
   * takes them up again.
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.#running = false;
    this.#stopRequested = true;
    this.wake();
    let timer: NodeJS.Timeout | undefined;
    const finished = Promise.all(this.#loops).then(() => true);
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
    if (!(await Promise.race([finished, late]))) {
      killRunningTools();
      await finished;
    }
    clearTimeout(timer);
    this.#loops = [];
  }

  /** Processes whatever is pending now; for tests and tools. */
  async drain(): Promise<void> {
    while (await this.#processNext()) {
      // keep going
    }
  }

  async #loop(): Promise<void> {
    while (this.#running) {
      let worked = false;
      try {
        await this.#sweep();
        worked = await this.#processNext();
      } catch (error) {
        this.#files.logger.error({ err: error }, "processing loop failed");
      }
      if (!worked && this.#running) await this.#idle();
    }
  }

  #idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, this.#pollMs);
      this.#waiters.add(done);
    });
  }

  async #processNext(): Promise<boolean> {
    const row = await claimForProcessing(this.#files.db, this.#leaseMs);
    if (!row) return false;
    const job = this.#process(row);
    this.#active.add(job);
    try {
      await job;
    } finally {
      this.#active.delete(job);
    }
    return true;
  }

  async #process(row: FileRow): Promise<void> {
    const log = this.#files.logger.child({ fileId: row.id });
    if (row.attempts > this.#maxAttempts) {
      log.error({ attempts: row.attempts }, "giving up on a file after repeated failures");
      await this.#fail(row, messages.processingFailed);
      return;
    }
    const heartbeat = setInterval(() => {
      extendLease(this.#files.db, row.id, this.#leaseMs).catch((error) => log.warn({ err: error }, "lease extension failed"));
    }, Math.max(1_000, this.#leaseMs / 3));
    const dir = await mkdtemp(path.join(this.#workDir, `${row.id}-`));
    const started = performance.now();
    try {
      const result = await this.#run(row, dir);
      await this.#finish(row, result);
      log.info({ duration: result.duration, chunks: result.chunks.length, ms: Math.round(performance.now() - started) }, "file ready");
    } catch (error) {
      // The verdict, or the hand-back, must reach the database: otherwise the record waits
      // for its lease (minutes) to run out. PostgreSQL may be restarting right now.
      if (error instanceof Refusal) {
        log.info({ reason: error.message }, "file refused");
        await this.#persist(log, () => this.#fail(row, error.message));
      } else {
        log.warn({ err: error, attempt: row.attempts }, "processing failed; will retry");
        await this.#persist(log, () => releaseLease(this.#files.db, row.id, Math.min(60_000, 2_000 * 2 ** row.attempts)));
      }
    } finally {
      clearInterval(heartbeat);
      await rm(dir, { recursive: true, force: true });
    }
  }

  /** Retries a write for about two minutes (a database restart), or until the worker stops. */
  async #persist(log: Logger, write: () => Promise<unknown>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await write();
        return;
      } catch (error) {
        if (this.#stopRequested || attempt >= 30) {
          log.error({ err: error }, "could not record the outcome; the file waits for its lease to expire");
          return;
        }
        if (attempt === 1) log.warn({ err: error }, "could not record the outcome yet; retrying");
        await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 500 * attempt)));
      }
    }
  }

  async #run(row: FileRow, dir: string): Promise<Processed> {
    const { storage } = this.#files.storage;
    const config = this.#files.config;
    const input = path.join(dir, "input");
    let rawKey = row.raw_key;
    let fileName = row.file_name;
    let contentType = row.content_type;
    let size: number;

    if (row.source_url) {
      // URL import: the fetch is the first step, re-checked on every connection and redirect.
      let fetched;
      try {
        fetched = await fetchToFile(row.source_url, input, {
          policy: this.#files.addressPolicy,
          maxBytes: config.MEDIA_MAX_FILE_BYTES,
          timeoutMs: config.MEDIA_IMPORT_TIMEOUT_MS,
        });
      } catch (error) {
        if (error instanceof AppError && error.code === "invalid_argument") throw new Refusal(error.message);
        throw error;
      }
      fileName = fetched.fileName;
      contentType = fetched.contentType;
      size = fetched.size;
      rawKey = keys.raw(row.id, fetched.contentType as AllowedContentType);
    } else {
      const head = await storage.headObject(rawKey);
      if (!head) throw new Refusal(messages.notReceived);
      if (head.size !== row.file_size) throw new Refusal(messages.sizeMismatch(head.size, row.file_size));
      size = head.size;
      try {
        checkSize(size, this.#files.limits);
      } catch (error) {
        throw new Refusal((error as Error).message);
      }
      const object = await storage.getObject(rawKey);
      await pipeline(object.body, createWriteStream(input));
      if ((await stat(input)).size !== size) throw new Error("the object changed while it was read");
    }

    // The first bytes must be one of the accepted containers: a renamed text file stops here.
    const sniffed = await fileTypeFromFile(input);
    if (!sniffed || !SNIFFED_EXTENSIONS.has(sniffed.ext)) throw new Refusal(messages.notMedia);

    const limits = { maxStreams: config.MEDIA_MAX_STREAMS };
    const refusalOf = (error: unknown) => {
      if (error instanceof TooManyStreamsError) return new Refusal(messages.tooManyStreams(config.MEDIA_MAX_STREAMS));
      if (error instanceof NotMediaError) return new Refusal(messages.damaged);
      return error;
    };
    let probed;
    try {
      probed = await probe(this.#tools, input, limits);
    } catch (error) {
      throw refusalOf(error);
    }
    if (!probed.hasAudio) throw new Refusal(messages.noAudio);
    if (sniffed.ext === "wav") {
      const declared = await wavDeclaredSeconds(input);
      if (declared !== undefined) probed = { ...probed, declaredDuration: declared, durationEstimated: false };
    }
    // A header that states more than the limit is refused before decoding: a few MB of
    // FLAC can hold hours of silence, hundreds of MB once decoded.
    if (probed.declaredDuration !== undefined && !probed.durationEstimated && probed.declaredDuration > config.MEDIA_MAX_DURATION_SECONDS) {
      throw new Refusal(messages.tooLong(config.MEDIA_MAX_DURATION_SECONDS));
    }

    const processedFile = path.join(dir, "processed.wav");
    const timeoutMs = Math.max(120_000, config.MEDIA_MAX_DURATION_SECONDS * 100);
    let duration: number;
    try {
      // One second past the limit: enough to tell "longer than allowed" from "exactly at it".
      const maxSeconds = config.MEDIA_MAX_DURATION_SECONDS + 1;
      ({ duration } = await transcodeToProcessed(this.#tools, input, processedFile, { ...limits, maxSeconds, timeoutMs }));
    } catch (error) {
      throw refusalOf(error);
    }
    if (!(duration > 0)) throw new Refusal(messages.silentEmpty);
    // A header that promises more than the bytes hold: the file was cut short.
    if (probed.declaredDuration !== undefined && !probed.durationEstimated && duration < probed.declaredDuration * 0.95 - 0.5) {
      throw new Refusal(messages.damaged);
    }
    if (duration > config.MEDIA_MAX_DURATION_SECONDS) throw new Refusal(messages.tooLong(config.MEDIA_MAX_DURATION_SECONDS));

    if (row.source_url) {
      await storage.putObject(rawKey, createReadStream(input), { contentType, contentLength: size });
    }
    const processedKey = keys.processed(row.id);
    const processedSize = (await stat(processedFile)).size;
    await storage.putObject(processedKey, createReadStream(processedFile), { contentType: "audio/wav", contentLength: processedSize });

    const chunks: string[] = [];
    const spans = planChunks(duration, {
      maxBytes: config.MEDIA_CHUNK_MAX_BYTES,
      overlapSeconds: config.MEDIA_CHUNK_OVERLAP_SECONDS,
    });
    for (const span of spans) {
      const chunkFile = path.join(dir, `chunk-${span.index}.wav`);
      await cutProcessed(this.#tools, processedFile, chunkFile, span.start, span.end, timeoutMs);
      const key = keys.chunk(row.id, span.index, Math.round(span.start * 1000));
      await storage.putObject(key, createReadStream(chunkFile), { contentType: "audio/wav", contentLength: (await stat(chunkFile)).size });
      await rm(chunkFile, { force: true });
      chunks.push(key);
    }
    return { rawKey, fileName, contentType, size, duration, processedKey, chunks };
  }

  /** READY and FileUploaded in one transaction; a record deleted meanwhile loses its objects instead. */
  async #finish(row: FileRow, result: Processed): Promise<void> {
    const files = this.#files;
    const stillThere = await files.db.transaction().execute(async (trx) => {
      const current = await findFile(trx, row.id, { forUpdate: true });
      if (current?.status !== "processing") return false;
      await trx
        .updateTable("files")
        .set({
          status: "ready",
          raw_key: result.rawKey,
          file_name: result.fileName,
          content_type: result.contentType,
          file_size: result.size,
          duration: result.duration,
          processed_key: result.processedKey,
          chunks: result.chunks,
          error: null,
          lease_until: null,
          updated_at: sql`now()`,
        })
        .where("id", "=", row.id)
        .execute();
      const stored = [result.processedKey, ...result.chunks, ...(row.source_url ? [result.rawKey] : [])];
      await enqueueEvents(trx, [
        ...(files.storage.kind === "local" ? stored.map((key) => files.notification(StorageAction.PUT_OBJECT, key)) : []),
        newEvent(FileUploadedSchema, {
          fileId: row.id,
          userId: row.user_id,
          fileName: result.fileName,
          fileSize: BigInt(result.size),
          duration: result.duration,
        }),
      ]);
      return true;
    });
    if (!stillThere) await files.deleteObjectsOf(row.id);
  }

  /** FAILED with the reason; the objects are deleted ("nothing left in storage"). */
  async #fail(row: FileRow, reason: string): Promise<void> {
    const files = this.#files;
    await files.db.transaction().execute(async (trx) => {
      const current = await findFile(trx, row.id, { forUpdate: true });
      if (current?.status !== "processing") return;
      await trx
        .updateTable("files")
        .set({ status: "failed", error: reason, processed_key: null, chunks: [], lease_until: null, updated_at: sql`now()` })
        .where("id", "=", row.id)
        .execute();
      // An import's raw object is stored only once it passed every check, so it never exists here.
      await enqueueEvents(trx, files.deletionNotifications({ ...current, status: current.source_url ? "processing" : "ready" }));
    });
    await files.deleteObjectsOf(row.id);
  }

  /** Uploads that never arrived: their link is long expired, so the record goes. */
  async #sweep(): Promise<void> {
    if (Date.now() - this.#lastSweep < this.#sweepMs) return;
    this.#lastSweep = Date.now();
    const abandoned = await findAbandonedUploads(this.#files.db, this.#abandonedGraceMs);
    for (const row of abandoned) {
      // One last look: a notification may have been lost.
      if (await this.#files.storage.storage.headObject(row.raw_key)) await this.#files.objectCreated(row.raw_key);
      else await this.#files.purge([row]);
    }
  }
}

interface Processed {
  rawKey: string;
  fileName: string;
  contentType: string;
  size: number;
  duration: number;
  processedKey: string;
  chunks: string[];
}

/** A verdict on the file itself: final, shown to the person, never retried. */
class Refusal extends Error {
  override readonly name = "Refusal";
}
