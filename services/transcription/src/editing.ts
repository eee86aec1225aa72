import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { AppError, enqueueEvents, newEvent } from "@transcribe/platform";
import { TranscriptEditedSchema } from "@transcribe/proto/events/v1/events";
import type { Selectable } from "kysely";
import { lockTranscription, type Db, type Trx } from "./db/repository.js";
import { findRevision, indexSegments, insertRevision, isEngineResult, segmentsOf } from "./db/revisions.js";
import type { ResultsTable, RevisionRow, TranscriptionRow } from "./db/schema.js";
import { applyEdit, isNoop, type ChangeSummary, type EditableSegment, type SegmentEdit } from "./domain/edit-timing.js";
import { deltaOf, MAX_DELTA_CHAIN } from "./domain/revision-delta.js";
import { rememberSegments } from "./db/revision-cache.js";

/** A result as one revision reads: the engine's row (language, duration) and the revision's segments. */
export interface RevisionView {
  result: Selectable<ResultsTable>;
  revision: RevisionRow;
  segments: EditableSegment[];
  text: string;
}

export const transcriptionNotFound = () => new AppError("not_found", "Transcription not found");
export const revisionNotFound = (number: number) => new AppError("not_found", `Revision ${number} not found`, { field: "revision" });

function conflict(current: number): AppError {
  return new AppError("failed_precondition", `This transcript has changed since you opened it (it is now at revision ${current}); reload it or overwrite`, {
    reason: "revision_conflict",
    current_revision: current,
  });
}

async function lockEditable(trx: Trx, userId: string, id: string): Promise<TranscriptionRow> {
  const row = await lockTranscription(trx, userId, id);
  if (!row) throw transcriptionNotFound();
  if (!row.result_id || row.revision === 0) throw new AppError("failed_precondition", "This transcription has no transcript to edit yet");
  if (row.status !== "completed") {
    throw new AppError("failed_precondition", "This transcription is being transcribed again; wait for it to finish before editing");
  }
  return row;
}

export async function viewOf(db: Db | Trx, revision: RevisionRow): Promise<RevisionView> {
  return viewWith(db, revision, await segmentsOf(db, revision));
}

/** A revision of one of the user's transcripts; another transcript's number is simply not found here. */
export async function readRevision(db: Db, transcription: TranscriptionRow, number?: number): Promise<RevisionView | undefined> {
  const wanted = number ?? transcription.revision;
  if (wanted === 0) return undefined;
  const revision = await findRevision(db, transcription.id, wanted);
  if (!revision) {
    if (number !== undefined) throw revisionNotFound(number);
    return undefined;
  }
  return viewOf(db, revision);
}

async function nextNumber(trx: Trx, transcriptionId: string): Promise<number> {
  const last = await trx
    .selectFrom("transcription_revisions")
    .select((eb) => eb.fn.max("number").as("n"))
    .where("transcription_id", "=", transcriptionId)
    .executeTakeFirst();
  return Number(last?.n ?? 0) + 1;
}

async function announce(trx: Trx, row: TranscriptionRow, revision: number): Promise<void> {
  await enqueueEvents(trx, [
    newEvent(TranscriptEditedSchema, { transcriptId: row.id, userId: row.user_id, revision, editedAt: timestampFromDate(new Date()) }),
  ]);
}

/** A save's outcome: the new revision's view, and what changed over the base (for a short answer). */
export interface SavedEdit extends RevisionView {
  transcription: TranscriptionRow;
  /** The segments that are new or differ from the base revision's, in order. */
  changed: EditableSegment[];
}

/**
 * Saves an edit as a new revision, in one transaction: the transcript row is locked, the
 * base revision checked, the edit applied to the current segments (refused edits write
 * nothing), the revision stored (as a delta over its base, or whole every
 * MAX_DELTA_CHAIN saves), search rows of the touched segments rewritten and
 * TranscriptEdited put in the outbox. A save that changes nothing makes no revision.
 */
export async function saveEdit(db: Db, input: EditInput): Promise<SavedEdit> {
  const saved = await db.transaction().execute((trx) => saveEditIn(trx, input));
  // Committed: the next save starts from these segments without reading them back.
  rememberSegments(saved.transcription.id, saved.revision.number, saved.segments);
  return saved;
}

export interface EditInput {
  userId: string;
  id: string;
  baseRevision: number;
  edits: SegmentEdit[];
  /** "vocabulary": the user's "sounds like" replacements made by the worker (no author). */
  kind?: "edit" | "vocabulary";
}

/** saveEdit inside the caller's transaction (the worker's completion applies the vocabulary there). */
export async function saveEditIn(trx: Trx, input: EditInput): Promise<SavedEdit> {
  const row = await lockEditable(trx, input.userId, input.id);
  if (input.baseRevision !== row.revision) throw conflict(row.revision);
  const current = await findRevision(trx, row.id, row.revision);
  if (!current) throw conflict(row.revision);
  const base = await segmentsOf(trx, current);
  const outcome = applyEdit(base, input.edits, current.next_segment_id);
  if (isNoop(outcome.changes)) return { ...(await viewWith(trx, current, base)), transcription: row, changed: [] };
  const delta = deltaOf(base, outcome.segments);
  const chain = current.chain + 1;
  const number = await nextNumber(trx, row.id);
  const revision = await insertRevision(trx, {
    transcriptionId: row.id,
    number,
    resultId: current.result_id,
    kind: input.kind ?? "edit",
    authorId: input.kind === "vocabulary" ? null : input.userId,
    baseNumber: row.revision,
    restoredFrom: null,
    changes: outcome.changes,
    segments: outcome.segments,
    delta: chain <= MAX_DELTA_CHAIN ? { changes: delta, chain } : undefined,
    nextSegmentId: outcome.nextSegmentId,
  });
  const result = await trx.selectFrom("transcription_results").selectAll().where("id", "=", current.result_id).executeTakeFirstOrThrow();
  await indexSegments(trx, { transcriptionId: row.id, userId: row.user_id, language: result.language }, outcome.segments, {
    changed: [...outcome.changes.edited_segments, ...outcome.changes.added_segments],
    removed: outcome.changes.removed_segments,
  });
  await announce(trx, row, number);
  return {
    result,
    revision,
    segments: outcome.segments,
    text: outcome.segments.map((s) => s.text.trim()).join(" "),
    transcription: { ...row, revision: number },
    changed: delta.segments,
  };
}

async function viewWith(db: Db | Trx, revision: RevisionRow, segments: EditableSegment[]): Promise<RevisionView> {
  const result = await db.selectFrom("transcription_results").selectAll().where("id", "=", revision.result_id).executeTakeFirstOrThrow();
  const text = isEngineResult(revision) ? result.text : segments.map((s) => s.text.trim()).join(" ");
  return { result, revision, segments, text };
}

function difference(from: readonly EditableSegment[], to: readonly EditableSegment[]): ChangeSummary {
  const before = new Map(from.map((s) => [s.id, s]));
  const after = new Set(to.map((s) => s.id));
  const edited: number[] = [];
  const added: number[] = [];
  let wordsAdded = 0;
  for (const s of to) {
    const old = before.get(s.id);
    if (!old) {
      added.push(s.id);
      wordsAdded += s.words.length;
    } else if (old.text !== s.text || old.speaker !== s.speaker) edited.push(s.id);
  }
  const removed = from.filter((s) => !after.has(s.id));
  return {
    edited_segments: edited,
    added_segments: added,
    removed_segments: removed.map((s) => s.id),
    words_added: wordsAdded,
    words_removed: removed.reduce((n, s) => n + s.words.length, 0),
  };
}

/** Makes an older revision current again, as a new revision of kind 'restore'. */
export async function restoreRevision(db: Db, input: { userId: string; id: string; revision: number; baseRevision?: number | undefined }): Promise<RevisionView> {
  return db.transaction().execute(async (trx) => {
    const row = await lockEditable(trx, input.userId, input.id);
    if (input.baseRevision !== undefined && input.baseRevision !== row.revision) throw conflict(row.revision);
    const target = await findRevision(trx, row.id, input.revision);
    if (!target) throw revisionNotFound(input.revision);
    const current = await findRevision(trx, row.id, row.revision);
    const [from, to] = await Promise.all([current ? segmentsOf(trx, current) : Promise.resolve([]), segmentsOf(trx, target)]);
    const number = await nextNumber(trx, row.id);
    const revision = await insertRevision(trx, {
      transcriptionId: row.id,
      number,
      resultId: target.result_id,
      kind: "restore",
      authorId: input.userId,
      baseNumber: row.revision,
      restoredFrom: target.number,
      changes: difference(from, to),
      // An original stays a pointer to the engine's rows; anything else is stored whole.
      segments: isEngineResult(target) ? null : to,
      nextSegmentId: Math.max(target.next_segment_id, current?.next_segment_id ?? 0),
    });
    const view = await viewOf(trx, revision);
    await indexSegments(trx, { transcriptionId: row.id, userId: row.user_id, language: view.result.language }, view.segments);
    await announce(trx, row, number);
    return view;
  });
}
