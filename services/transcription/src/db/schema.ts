import type { Generated, Insertable, Selectable } from "kysely";
import type { Status } from "../domain/status.js";
import type { Pool } from "../domain/pools.js";
import type { JobSettings } from "../domain/settings.js";
import type { Speaker } from "../domain/speakers.js";
import type { DroppedSegment, Word } from "../domain/transcriber.js";

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
  current_job_id: string | null;
  settings: JobSettings;
  result_id: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  deleted_at: Date | null;
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

export interface TranscriptionDB {
  transcriptions: TranscriptionsTable;
  transcription_jobs: JobsTable;
  transcription_job_chunks: JobChunksTable;
  transcription_results: ResultsTable;
  transcription_segments: SegmentsTable;
}

export type TranscriptionRow = Selectable<TranscriptionsTable>;
export type JobRow = Selectable<JobsTable>;
export type NewTranscription = Insertable<TranscriptionsTable>;
