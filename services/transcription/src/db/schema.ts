import type { Generated, Insertable, Selectable } from "kysely";
import type { Status } from "../domain/status.js";
import type { Pool } from "../domain/pools.js";
import type { JobSettings } from "../domain/settings.js";
import type { Speaker, SpeakerTurn } from "../domain/speakers.js";
import type { ChangeSummary, EditableSegment } from "../domain/edit-timing.js";
import type { DroppedSegment, Word } from "../domain/transcriber.js";
import type { VocabularyTerm } from "../domain/vocabulary.js";

export type JobStatus = Exclude<Status, "deleted"> | "cancelled";

export interface TranscriptionsTable {
  id: string;
  user_id: string;
  file_id: string;
  display_name: string;
  file_name: string;
  content_type: string | null;
  duration: number;
  uploaded_at: Date;
  raw_key: string;
  processed_key: string | null;
  status: Status;
  error: string | null;
  /** A live job's readable progress (the model download it waits for); null otherwise. */
  progress: Generated<string | null>;
  current_job_id: string | null;
  settings: JobSettings;
  result_id: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  deleted_at: Date | null;
  /** The current revision of the current result (0 while there is none). */
  revision: Generated<number>;
  /** The text-search configuration of the current revision's language (a regconfig name). */
  search_config: string | null;
  /** What a live session settled as it was spoken (decision 0037); shown while there is no result. */
  live_text: Generated<string | null>;
}

export interface JobsTable {
  id: string;
  transcription_id: string;
  user_id: string;
  settings: JobSettings;
  engine_model: string;
  status: JobStatus;
  attempts: Generated<number>;
  max_attempts: number;
  run_after: Generated<Date>;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  last_error: string | null;
  started_event_sent: Generated<boolean>;
  created_at: Generated<Date>;
  started_at: Date | null;
  finished_at: Date | null;
  /** transcribe: a full run; diarize: speakers only, on the current result. */
  kind: Generated<"transcribe" | "diarize">;
  /** The worker pool that may lease it (domain/pools.ts). */
  pool: Generated<Pool>;
}

export interface JobChunksTable {
  job_id: string;
  chunk_index: number;
  result: unknown;
  created_at: Generated<Date>;
}

export interface ResultsTable {
  id: string;
  transcription_id: string;
  job_id: string;
  text: string;
  language: string;
  source_language: string;
  duration: number;
  engine: unknown;
  dropped: DroppedSegment[] | Generated<DroppedSegment[]>;
  speakers: Generated<Speaker[]>;
  speakers_note: string | null;
  speaker_turns: Generated<SpeakerTurn[]>;
  created_at: Generated<Date>;
}

export interface SegmentsTable {
  result_id: string;
  position: number;
  start_seconds: number;
  end_seconds: number;
  text: string;
  words: Word[];
  speaker: string | null;
}

/** What each worker last said about its local engine (worker/engine-state.ts). */
export interface EnginesTable {
  owner: string;
  state: "ready" | "preparing" | "unavailable";
  reason: string;
  updated_at: Date;
}

/** A revision as its base plus the segments that differ: the new order and those segments whole. */
export interface RevisionDelta {
  ids: number[];
  segments: EditableSegment[];
}

export type RevisionKind = "original" | "edit" | "restore" | "vocabulary";

export interface RevisionsTable {
  transcription_id: string;
  number: number;
  result_id: string;
  kind: RevisionKind;
  author_id: string | null;
  base_number: number | null;
  restored_from: number | null;
  changes: ChangeSummary | Record<string, never>;
  /** A full snapshot; null with delta null: the engine's segments (transcription_segments of result_id). */
  segments: EditableSegment[] | null;
  /** Set instead of segments: the changes over revision base_number (decision 0021, deltas). */
  delta: RevisionDelta | null;
  /** Deltas between this revision and the snapshot (or original) it reads from; 0 for a full one. */
  chain: Generated<number>;
  next_segment_id: number;
  created_at: Generated<Date>;
}

export interface SearchSegmentsTable {
  transcription_id: string;
  user_id: string;
  segment_id: number;
  start_seconds: number;
  end_seconds: number;
  text: string;
  /** A regconfig, given as its name. */
  config: string;
}

/** Whether a user's voice library is on; no row means off (decision 0031). */
export interface VoiceSettingsTable {
  user_id: string;
  enabled: boolean;
  updated_at: Generated<Date>;
}

/** A saved voice: the running mean of the speakers saved under its name, unit norm. */
export interface VoicesTable {
  id: string;
  user_id: string;
  name: string;
  embedding: number[];
  samples: number;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** A diarized speaker's embedding, kept while its user's library is on. */
export interface SpeakerVoicesTable {
  result_id: string;
  speaker_id: string;
  user_id: string;
  embedding: number[];
}

export interface VocabulariesTable {
  user_id: string;
  terms: VocabularyTerm[];
  updated_at: Generated<Date>;
}

export interface TranscriptionDB {
  voice_settings: VoiceSettingsTable;
  voices: VoicesTable;
  transcription_speaker_voices: SpeakerVoicesTable;
  transcription_engines: EnginesTable;
  transcriptions: TranscriptionsTable;
  transcription_jobs: JobsTable;
  transcription_job_chunks: JobChunksTable;
  transcription_results: ResultsTable;
  transcription_segments: SegmentsTable;
  transcription_revisions: RevisionsTable;
  transcription_search_segments: SearchSegmentsTable;
  transcription_vocabularies: VocabulariesTable;
}

export type RevisionRow = Selectable<RevisionsTable>;

export type TranscriptionRow = Selectable<TranscriptionsTable>;
export type JobRow = Selectable<JobsTable>;
export type NewTranscription = Insertable<TranscriptionsTable>;
