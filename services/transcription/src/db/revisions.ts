import { sql } from "kysely";
import type { ChangeSummary, EditableSegment } from "../domain/edit-timing.js";
import { applyDelta, type SegmentDelta } from "../domain/revision-delta.js";
import { cachedSegments, rememberSegments } from "./revision-cache.js";
import { json, type Db, type Trx } from "./repository.js";
import type { RevisionKind, RevisionRow } from "./schema.js";

/**
 * Revisions of a transcript (decision 0021): rows of transcription_revisions. The engine's
 * result stays in transcription_results/_segments and is revision kind 'original'.
 */

export async function findRevision(db: Db | Trx, transcriptionId: string, number: number): Promise<RevisionRow | undefined> {
  return db
    .selectFrom("transcription_revisions")
    .selectAll()
    .where("transcription_id", "=", transcriptionId)
    .where("number", "=", number)
    .executeTakeFirst();
}

export async function listRevisions(db: Db, transcriptionId: string): Promise<Array<Omit<RevisionRow, "segments" | "delta" | "chain">>> {
  return db
    .selectFrom("transcription_revisions")
    .select(["transcription_id", "number", "result_id", "kind", "author_id", "base_number", "restored_from", "changes", "next_segment_id", "created_at"])
    .where("transcription_id", "=", transcriptionId)
    .orderBy("number", "desc")
    .execute();
}

/** Whether a revision is the engine's result itself (no segments of its own). */
export const isEngineResult = (revision: Pick<RevisionRow, "segments" | "delta">) => !revision.segments && !revision.delta;

async function engineSegments(db: Db | Trx, resultId: string): Promise<EditableSegment[]> {
  const rows = await db
    .selectFrom("transcription_segments")
    .select(["position", "start_seconds", "end_seconds", "text", "words", "speaker"])
    .where("result_id", "=", resultId)
    .orderBy("position")
    .execute();
  return rows.map((r) => ({ id: r.position, start: r.start_seconds, end: r.end_seconds, text: r.text, words: r.words, ...(r.speaker ? { speaker: r.speaker } : {}) }));
}

/**
 * The segments a revision reads as: its snapshot, the engine's for an original, or for a
 * delta the snapshot its chain starts from with the chain's deltas applied in order (one
 * query for the chain, at most MAX_DELTA_CHAIN rows).
 */
export async function segmentsOf(db: Db | Trx, revision: RevisionRow): Promise<EditableSegment[]> {
  if (revision.segments) return revision.segments;
  const cached = cachedSegments(revision.transcription_id, revision.number);
  if (cached) return cached;
  if (!revision.delta) return engineSegments(db, revision.result_id);
  const rows = await db
    .selectFrom("transcription_revisions")
    .select(["number", "result_id", "base_number", "segments", "delta"])
    .where("transcription_id", "=", revision.transcription_id)
    .where("number", ">=", revision.number - revision.chain)
    .where("number", "<", revision.number)
    .execute();
  const byNumber = new Map(rows.map((r) => [r.number, r]));
  const deltas: SegmentDelta[] = [revision.delta];
  let at = revision.base_number;
  for (;;) {
    const row = at === null ? undefined : byNumber.get(at);
    if (!row) throw new Error(`Revision ${revision.number} of ${revision.transcription_id}: its delta chain is broken at ${at}`);
    if (!row.delta) {
      let segments = row.segments ?? (await engineSegments(db, row.result_id));
      for (const delta of deltas.reverse()) segments = applyDelta(segments, delta);
      // Rows read here are committed (a save reads the current one under the row lock).
      rememberSegments(revision.transcription_id, revision.number, segments);
      return segments;
    }
    deltas.push(row.delta);
    at = row.base_number;
  }
}

export async function insertRevision(
  trx: Trx,
  revision: {
    transcriptionId: string;
    number: number;
    resultId: string;
    kind: RevisionKind;
    authorId: string | null;
    baseNumber: number | null;
    restoredFrom: number | null;
    changes: ChangeSummary | Record<string, never>;
    /** Stored whole (a snapshot); null with no delta: the engine's segments. */
    segments: EditableSegment[] | null;
    /** Or the changes over baseNumber, chain deltas from the last whole one. */
    delta?: { changes: SegmentDelta; chain: number } | undefined;
    nextSegmentId: number;
  },
): Promise<RevisionRow> {
  const row = await trx
    .insertInto("transcription_revisions")
    .values({
      transcription_id: revision.transcriptionId,
      number: revision.number,
      result_id: revision.resultId,
      kind: revision.kind,
      author_id: revision.authorId,
      base_number: revision.baseNumber,
      restored_from: revision.restoredFrom,
      changes: json(revision.changes),
      segments: revision.segments && !revision.delta ? sql<EditableSegment[]>`${JSON.stringify(revision.segments)}::json` : null,
      delta: revision.delta ? sql<SegmentDelta>`${JSON.stringify(revision.delta.changes)}::json` : null,
      chain: revision.delta?.chain ?? 0,
      next_segment_id: revision.nextSegmentId,
    })
    // Not the segments: the caller has them, and they are the bulk of the row.
    .returning(["transcription_id", "number", "result_id", "kind", "author_id", "base_number", "restored_from", "changes", "next_segment_id", "chain", "created_at"])
    .executeTakeFirstOrThrow()
    .then((row) => ({ ...row, segments: revision.delta ? null : revision.segments, delta: revision.delta?.changes ?? null }));
  await trx
    .updateTable("transcriptions")
    .set({ revision: revision.number, updated_at: sql`now()`, search_config: sql`(select transcript_search_config(language) from transcription_results where id = ${revision.resultId})` })
    .where("id", "=", revision.transcriptionId)
    .execute();
  return row;
}

/**
 * Makes the search rows of a transcript match its current segments. With `only` (the
 * ids a save touched) it rewrites just those, so a one-word fix to a two-hour transcript
 * writes one row, not two thousand.
 */
export async function indexSegments(
  trx: Trx,
  target: { transcriptionId: string; userId: string; language: string },
  segments: readonly EditableSegment[],
  only?: { changed: readonly number[]; removed: readonly number[] },
): Promise<void> {
  const changed = only ? new Set(only.changed) : undefined;
  if (only) {
    const gone = [...only.removed, ...only.changed];
    if (gone.length > 0) {
      await trx
        .deleteFrom("transcription_search_segments")
        .where("transcription_id", "=", target.transcriptionId)
        .where("segment_id", "in", gone)
        .execute();
    }
  } else {
    await trx.deleteFrom("transcription_search_segments").where("transcription_id", "=", target.transcriptionId).execute();
  }
  const rows = segments.filter((s) => !changed || changed.has(s.id));
  // A few thousand rows per statement keeps the parameter count under PostgreSQL's limit.
  for (let i = 0; i < rows.length; i += 2000) {
    const batch = rows.slice(i, i + 2000);
    await sql`
      insert into transcription_search_segments (transcription_id, user_id, segment_id, start_seconds, end_seconds, text, config)
      select ${target.transcriptionId}::uuid, ${target.userId}, s.id, s.start_seconds, s.end_seconds, s.text, transcript_search_config(${target.language})
      from jsonb_to_recordset(${JSON.stringify(batch.map((s) => ({ id: s.id, start_seconds: s.start, end_seconds: s.end, text: s.text })))}::jsonb)
        as s(id integer, start_seconds double precision, end_seconds double precision, text text)`.execute(trx);
  }
}

/**
 * A completed job's result becomes the transcript's next revision (kind 'original') and
 * what search finds. Runs in the worker's completion transaction.
 */
export async function startRevisions(
  trx: Trx,
  target: { transcriptionId: string; userId: string; resultId: string; language: string; segments: ReadonlyArray<{ start: number; end: number; text: string }> },
): Promise<number> {
  const last = await trx
    .selectFrom("transcription_revisions")
    .select((eb) => eb.fn.max("number").as("n"))
    .where("transcription_id", "=", target.transcriptionId)
    .executeTakeFirst();
  const number = Number(last?.n ?? 0) + 1;
  await insertRevision(trx, {
    transcriptionId: target.transcriptionId,
    number,
    resultId: target.resultId,
    kind: "original",
    authorId: null,
    baseNumber: null,
    restoredFrom: null,
    changes: {},
    segments: null,
    nextSegmentId: target.segments.length,
  });
  await indexSegments(
    trx,
    target,
    target.segments.map((s, id) => ({ id, start: s.start, end: s.end, text: s.text, words: [] })),
  );
  return number;
}
