import { sql, type Kysely, type RawBuilder, type Transaction } from "kysely";
import { poolFor, type Pool } from "../domain/pools.js";
import type { JobSettings } from "../domain/settings.js";
import { activeStatuses, predecessorsOf, type Status } from "../domain/status.js";
import type { ChunkResult, TranscriptResult } from "../domain/transcriber.js";
import type { JobRow, JobStatus, TranscriptionDB, TranscriptionRow } from "./schema.js";

export type Db = Kysely<TranscriptionDB>;
export type Trx = Transaction<TranscriptionDB>;

/** A jsonb parameter (pg would turn a JS array into a PostgreSQL array literal). */
export function json<T>(value: T): RawBuilder<T> {
  return sql<T>`${JSON.stringify(value)}::jsonb`;
}

export async function findTranscription(db: Db | Trx, userId: string, id: string): Promise<TranscriptionRow | undefined> {
  return db
    .selectFrom("transcriptions")
    .selectAll()
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .where("status", "<>", "deleted")
    .executeTakeFirst();
}

/**
 * findTranscription with the row's version (its xmin, the transaction that last wrote it,
 * and updated_at): what the result cache is keyed by (rpc/result-cache.ts).
 */
export async function findTranscriptionVersioned(db: Db, userId: string, id: string): Promise<(TranscriptionRow & { row_version: string }) | undefined> {
  return db
    .selectFrom("transcriptions")
    .selectAll()
    .select(sql<string>`xmin::text || '/' || (extract(epoch from updated_at) * 1000000)::bigint::text`.as("row_version"))
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .where("status", "<>", "deleted")
    .executeTakeFirst();
}

/** The same row, locked for the rest of the transaction (rename, speakers, edits). */
export async function lockTranscription(trx: Trx, userId: string, id: string): Promise<TranscriptionRow | undefined> {
  return trx
    .selectFrom("transcriptions")
    .selectAll()
    .where("id", "=", id)
    .where("user_id", "=", userId)
    .where("status", "<>", "deleted")
    .forUpdate()
    .executeTakeFirst();
}

type ListFilter = { limit: number; offset: number; status?: Status | undefined; query?: string | undefined };

const likePattern = (query: string) => `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The number of the user's rows the filter matches, and a fingerprint of all the user's
 * rows (deleted ones included): their count and the sum of a 64-bit hash of each row's xmin,
 * the transaction that last wrote it. Any insert, update or delete of one of them changes
 * it (rpc/result-cache.ts, createListCache). One statement, the count the list needs anyway.
 */
export async function listVersion(db: Db, userId: string, filter: ListFilter): Promise<{ total: number; fingerprint: string }> {
  const conditions = [sql`status <> 'deleted'`];
  if (filter.status) conditions.push(sql`status = ${filter.status}`);
  if (filter.query) conditions.push(sql`display_name ilike ${likePattern(filter.query)}`);
  const row = await db
    .selectFrom("transcriptions")
    .where("user_id", "=", userId)
    .select([
      sql<string>`count(*) filter (where ${sql.join(conditions, sql` and `)})`.as("n"),
      sql<string>`count(*)::text || '/' || coalesce(sum(hashtextextended(xmin::text, 0)), 0)::text`.as("fingerprint"),
    ])
    .executeTakeFirstOrThrow();
  return { total: Number(row.n), fingerprint: row.fingerprint };
}

/** One page of the list (listTranscriptions without the count). */
export async function listPage(db: Db, userId: string, filter: ListFilter): Promise<TranscriptionRow[]> {
  let base = db.selectFrom("transcriptions").where("user_id", "=", userId).where("status", "<>", "deleted");
  if (filter.status) base = base.where("status", "=", filter.status);
  if (filter.query) base = base.where("display_name", "ilike", likePattern(filter.query));
  return base.selectAll().orderBy("created_at", "desc").orderBy("id").limit(filter.limit).offset(filter.offset).execute();
}

export async function listTranscriptions(
  db: Db,
  userId: string,
  filter: { limit: number; offset: number; status?: Status | undefined; query?: string | undefined },
): Promise<{ rows: TranscriptionRow[]; total: number }> {
  let base = db.selectFrom("transcriptions").where("user_id", "=", userId).where("status", "<>", "deleted");
  if (filter.status) base = base.where("status", "=", filter.status);
  if (filter.query) {
    const escaped = filter.query.replace(/[\\%_]/g, (c) => `\\${c}`);
    base = base.where("display_name", "ilike", `%${escaped}%`);
  }
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy("created_at", "desc").orderBy("id").limit(filter.limit).offset(filter.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function loadResult(db: Db | Trx, resultId: string) {
  const result = await db.selectFrom("transcription_results").selectAll().where("id", "=", resultId).executeTakeFirst();
  if (!result) return undefined;
  const segments = await db
    .selectFrom("transcription_segments")
    .selectAll()
    .where("result_id", "=", resultId)
    .orderBy("position")
    .execute();
  return { result, segments };
}

export async function insertJob(
  trx: Trx,
  job: {
    id: string;
    transcriptionId: string;
    userId: string;
    settings: JobSettings;
    engineModel: string;
    maxAttempts: number;
    kind?: "transcribe" | "diarize";
  },
): Promise<void> {
  await trx
    .insertInto("transcription_jobs")
    .values({
      id: job.id,
      transcription_id: job.transcriptionId,
      user_id: job.userId,
      settings: json(job.settings),
      engine_model: job.engineModel,
      status: "pending",
      max_attempts: job.maxAttempts,
      kind: job.kind ?? "transcribe",
      pool: poolFor({ provider: job.settings.provider, engineModel: job.engineModel, kind: job.kind }),
      lease_owner: null,
      lease_expires_at: null,
      last_error: null,
      started_at: null,
      finished_at: null,
    })
    .execute();
}

/** Moves the transcription's status forward, only while `jobId` is its current job. */
export async function advanceTranscription(
  trx: Trx,
  transcriptionId: string,
  jobId: string,
  to: Status,
  extra: { error?: string | null; result_id?: string } = {},
): Promise<boolean> {
  const result = await trx
    .updateTable("transcriptions")
    .set({ status: to, updated_at: sql`now()`, ...extra })
    .where("id", "=", transcriptionId)
    .where("current_job_id", "=", jobId)
    .where("status", "in", predecessorsOf(to))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

// ---- the worker's side ------------------------------------------------------------

export interface LeasedJob extends JobRow {
  file_id: string;
  duration: number;
  transcription_status: Status;
}

/**
 * Takes one runnable job: pending or live with no lease, or whose lease expired (its
 * worker died). `for update skip locked` lets many workers poll without blocking each
 * other; the lease is what keeps a job to one worker while it runs.
 */
export async function leaseJob(db: Db, owner: string, leaseSeconds: number, pool?: Pool): Promise<LeasedJob | undefined> {
  const leased = await sql<JobRow>`
    update transcription_jobs set
      lease_owner = ${owner},
      lease_expires_at = now() + make_interval(secs => ${leaseSeconds}),
      attempts = attempts + 1
    where id = (
      select id from transcription_jobs
      where status in ('pending', 'processing', 'transcribing')
        and run_after <= now()
        and (lease_expires_at is null or lease_expires_at < now())
        and (${pool ?? null}::text is null or pool = ${pool ?? null})
      order by run_after, created_at
      for update skip locked
      limit 1
    )
    returning *`.execute(db);
  const job = leased.rows[0];
  if (!job) return undefined;
  const transcription = await db
    .selectFrom("transcriptions")
    .select(["file_id", "duration", "status"])
    .where("id", "=", job.transcription_id)
    .executeTakeFirst();
  if (!transcription) return undefined;
  return { ...job, file_id: transcription.file_id, duration: transcription.duration, transcription_status: transcription.status };
}

/** Extends the lease; false when it is no longer ours (taken over, cancelled, purged). */
export async function heartbeat(db: Db, jobId: string, owner: string, leaseSeconds: number): Promise<boolean> {
  const result = await db
    .updateTable("transcription_jobs")
    .set({ lease_expires_at: sql`now() + make_interval(secs => ${leaseSeconds})` })
    .where("id", "=", jobId)
    .where("lease_owner", "=", owner)
    .where("status", "in", [...activeStatuses])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Moves a job we hold forward (guarded like the transcription's status). */
export async function advanceJob(trx: Trx, jobId: string, owner: string, to: JobStatus, set: Record<string, unknown> = {}): Promise<boolean> {
  const from = to === "cancelled" ? [...activeStatuses] : predecessorsOf(to as Status).filter((s) => s !== "deleted");
  const result = await trx
    .updateTable("transcription_jobs")
    .set({ status: to, ...set })
    .where("id", "=", jobId)
    .where("lease_owner", "=", owner)
    .where("status", "in", from as JobStatus[])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives the job back to the queue (transient failure, or the file is not ready yet). */
export async function releaseJob(
  db: Db,
  jobId: string,
  owner: string,
  options: { delayMs: number; error?: string; refundAttempt?: boolean },
): Promise<boolean> {
  const result = await db
    .updateTable("transcription_jobs")
    .set({
      lease_owner: null,
      lease_expires_at: null,
      run_after: sql`now() + make_interval(secs => ${options.delayMs / 1000})`,
      ...(options.error ? { last_error: options.error } : {}),
      ...(options.refundAttempt ? { attempts: sql`greatest(attempts - 1, 0)` } : {}),
    })
    .where("id", "=", jobId)
    .where("lease_owner", "=", owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function loadChunks(db: Db, jobId: string): Promise<Map<number, ChunkResult>> {
  const rows = await db.selectFrom("transcription_job_chunks").selectAll().where("job_id", "=", jobId).execute();
  return new Map(rows.map((r) => [r.chunk_index, r.result as ChunkResult]));
}

/** Stores a finished window, only while we still hold the job. */
export async function saveChunk(db: Db, jobId: string, owner: string, chunk: ChunkResult): Promise<boolean> {
  const result = await sql`
    insert into transcription_job_chunks (job_id, chunk_index, result)
    select ${jobId}, ${chunk.index}, ${JSON.stringify(chunk)}::jsonb
    where exists (select 1 from transcription_jobs where id = ${jobId} and lease_owner = ${owner})
    on conflict (job_id, chunk_index) do update set result = excluded.result`.execute(db);
  return Number(result.numAffectedRows ?? 0) === 1;
}

/** The current result as the worker's types, for a diarize-only job. */
export async function loadTranscript(db: Db | Trx, resultId: string): Promise<TranscriptResult | undefined> {
  const loaded = await loadResult(db, resultId);
  if (!loaded) return undefined;
  const { result, segments } = loaded;
  return {
    text: result.text,
    language: result.language,
    sourceLanguage: result.source_language,
    duration: result.duration,
    engine: result.engine as TranscriptResult["engine"],
    dropped: result.dropped as TranscriptResult["dropped"],
    segments: segments.map((s) => ({ start: s.start_seconds, end: s.end_seconds, text: s.text, words: s.words })),
  };
}

export async function insertResult(trx: Trx, resultId: string, transcriptionId: string, jobId: string, result: TranscriptResult): Promise<void> {
  await trx
    .insertInto("transcription_results")
    .values({
      id: resultId,
      transcription_id: transcriptionId,
      job_id: jobId,
      text: result.text,
      language: result.language,
      source_language: result.sourceLanguage,
      duration: result.duration,
      engine: json(result.engine),
      dropped: json(result.dropped),
      speakers: json(result.speakers ?? []),
      speakers_note: result.speakersNote ?? null,
      speaker_turns: json(result.speakerTurns ?? []),
    })
    .execute();
  if (result.segments.length > 0) {
    await trx
      .insertInto("transcription_segments")
      .values(
        result.segments.map((s, position) => ({
          result_id: resultId,
          position,
          start_seconds: s.start,
          end_seconds: s.end,
          text: s.text,
          words: json(s.words),
          speaker: s.speaker ?? null,
        })),
      )
      .execute();
  }
}
