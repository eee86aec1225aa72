import type { Speaker } from "../domain/speakers.js";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  AudioFileSchema,
  SegmentSchema,
  SpeakerSchema,
  SpeakerTurnSchema,
  TimestampGranularity,
  TranscriptionConfigSchema,
  TranscriptionListItemSchema,
  TranscriptionResultSchema,
  TranscriptionSchema,
  TranscriptionStatus,
  TranscriptionStatusSchema,
  WordSchema,
  RevisionSchema,
  RevisionChangesSchema,
  type Revision,
  type VocabularyTerm as ProtoVocabularyTerm,
  type TranscriptionResult,
  type Transcription,
  type TranscriptionListItem,
} from "@transcribe/proto/transcription/v1/transcription";
import { enumNames, resultJson } from "@transcribe/platform";
import type { RevisionRow, TranscriptionRow } from "../db/schema.js";
import type { ChangeSummary } from "../domain/edit-timing.js";
import type { RevisionView } from "../editing.js";
import { granularityNames } from "../domain/settings.js";
import { activeStatuses, type Status } from "../domain/status.js";
import type { VocabularyTerm } from "../domain/vocabulary.js";

/** The database's status names are the proto enum's (domain/status.ts lists the same ones). */
const statusNames = enumNames<TranscriptionStatus>(TranscriptionStatusSchema);

export function toProtoStatus(status: Status): TranscriptionStatus {
  return statusNames.value(status) ?? TranscriptionStatus.UNSPECIFIED;
}

export function fromProtoStatus(status: TranscriptionStatus): Status | undefined {
  return statusNames.name(status) as Status | undefined;
}

export function vocabularyFromProto(terms: readonly ProtoVocabularyTerm[]) {
  return terms.map((t) => ({ term: t.term, soundsLike: t.soundsLike, language: t.language }));
}

export function vocabularyToProto(terms: readonly VocabularyTerm[]) {
  return terms.map((t) => ({ term: t.term, soundsLike: t.soundsLike ?? [], ...(t.language ? { language: t.language } : {}) }));
}

export function toListItem(row: TranscriptionRow): TranscriptionListItem {
  return create(TranscriptionListItemSchema, {
    id: row.id,
    displayName: row.display_name,
    duration: row.duration,
    model: row.settings.model,
    status: toProtoStatus(row.status),
    uploadedAt: timestampFromDate(row.uploaded_at),
  });
}

/** A page of the list as the public API's JSON array (ListTranscriptionsResponse.transcriptions_json, decision 0027). */
export function toListJson(rows: TranscriptionRow[]): Uint8Array {
  return utf8.encode(
    JSON.stringify(
      rows.map((row) => ({
        id: row.id,
        display_name: row.display_name,
        duration: row.duration,
        model: row.settings.model,
        // The list never holds deleted rows; the API has no name for them.
        status: row.status === "deleted" ? "pending" : row.status,
        uploaded_at: row.uploaded_at.toISOString(),
      })),
    ),
  );
}

/** A revision's segments as the contract's result (words only when WORD granularity was asked for). */
export function toResult(view: RevisionView, withWords: boolean): TranscriptionResult {
  return create(TranscriptionResultSchema, {
    id: view.result.id,
    text: view.text,
    language: view.result.language,
    duration: view.result.duration,
    revision: view.revision.number,
    segments: view.segments.map((s) =>
      create(SegmentSchema, {
        id: s.id,
        start: s.start,
        end: s.end,
        text: s.text,
        ...(s.speaker ? { speaker: s.speaker } : {}),
        words: withWords
          ? s.words.map((w) =>
              create(WordSchema, {
                word: w.word.trim(),
                start: w.start,
                end: w.end,
                ...(w.probability !== undefined ? { probability: w.probability } : {}),
                ...(w.speaker ? { speaker: w.speaker } : {}),
              }),
            )
          : [],
      }),
    ),
    speakers: view.result.speakers.map(toSpeaker),
    ...(view.result.speakers_note ? { speakersNote: view.result.speakers_note } : {}),
    speakerTurns: view.result.speaker_turns.map((t) => create(SpeakerTurnSchema, t)),
  });
}

export function toRevision(row: Omit<RevisionRow, "segments" | "delta" | "chain">): Revision {
  const changes = row.changes as Partial<ChangeSummary>;
  return create(RevisionSchema, {
    number: row.number,
    kind: row.kind,
    authorId: row.author_id ?? "",
    createdAt: timestampFromDate(row.created_at),
    changes: create(RevisionChangesSchema, {
      editedSegments: changes.edited_segments ?? [],
      addedSegments: changes.added_segments ?? [],
      removedSegments: changes.removed_segments ?? [],
      wordsAdded: changes.words_added ?? 0,
      wordsRemoved: changes.words_removed ?? 0,
    }),
    ...(row.base_number !== null ? { baseRevision: row.base_number } : {}),
    ...(row.restored_from !== null ? { restoredFrom: row.restored_from } : {}),
  });
}

export const wantsWords = (row: TranscriptionRow) => row.settings.timestampGranularities.includes("word");

export function toDetail(row: TranscriptionRow, view: RevisionView | undefined): Transcription {
  return create(TranscriptionSchema, {
    id: row.id,
    displayName: row.display_name,
    status: toProtoStatus(row.status),
    config: create(TranscriptionConfigSchema, {
      model: row.settings.model,
      language: row.settings.language,
      timestampGranularities: row.settings.timestampGranularities.map((g) => granularityNames.value(g) ?? TimestampGranularity.UNSPECIFIED),
      diarize: row.settings.diarize ?? false,
      ...(row.settings.minSpeakers !== undefined ? { minSpeakers: row.settings.minSpeakers } : {}),
      ...(row.settings.maxSpeakers !== undefined ? { maxSpeakers: row.settings.maxSpeakers } : {}),
    }),
    audioFile: create(AudioFileSchema, {
      fileId: row.file_id,
      fileName: row.file_name,
      ...(row.content_type ? { contentType: row.content_type } : {}),
    }),
    ...(view ? { result: toResult(view, wantsWords(row)) } : {}),
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
    ...(row.status === "failed" && row.error ? { error: row.error } : {}),
    ...(row.progress && (activeStatuses as readonly string[]).includes(row.status) ? { progress: row.progress } : {}),
    ...(!row.result_id && row.live_text ? { liveText: row.live_text } : {}),
  });
}

const utf8 = new TextEncoder();

/**
 * A revision's segments as the public API's JSON result (the BFF's `result`, docs/api.md),
 * the same fields and rules as toResult, for Transcription.result_json (decision 0027):
 * one JSON.stringify here instead of a protobuf round trip and a second mapping in the BFF.
 */
export function toResultJson(view: RevisionView, withWords: boolean): Uint8Array {
  const { result } = view;
  return utf8.encode(
    JSON.stringify(
      resultJson(
        {
          id: result.id,
          text: view.text,
          language: result.language,
          duration: result.duration,
          revision: view.revision.number,
          segments: view.segments,
          speakers: result.speakers,
          speakersNote: result.speakers_note,
          speakerTurns: result.speaker_turns,
        },
        withWords,
      ),
    ),
  );
}

/** A speaker on the wire; voice_id and confidence only where the voice library set them (decision 0031). */
export function toSpeaker(sp: Speaker) {
  return create(SpeakerSchema, {
    id: sp.id,
    name: sp.name,
    ...(sp.voiceId ? { voiceId: sp.voiceId } : {}),
    ...(sp.confidence !== undefined ? { confidence: sp.confidence } : {}),
  });
}

