import { sql } from "kysely";
import type { Migrations } from "@transcribe/platform";

/** The export service's schema: export records. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {
  "0001_exports": {
    async up(db) {
      // One row per rendered file. Rows are written before the object, so every stored
      // object has a row until both are removed (expiry sweep, transcript or user deleted).
      await sql`
        create table exports (
          id uuid primary key,
          user_id text not null,
          transcription_id text not null,
          format text not null check (format in ('txt', 'docx', 'pdf', 'srt', 'vtt', 'json')),
          object_key text not null unique,
          file_name text not null,
          content_type text not null,
          size_bytes bigint not null default 0,
          created_at timestamptz not null default now(),
          expires_at timestamptz not null
        )`.execute(db);
      await sql`create index exports_user_transcription on exports (user_id, transcription_id)`.execute(db);
      await sql`create index exports_transcription on exports (transcription_id)`.execute(db);
      await sql`create index exports_expires_at on exports (expires_at)`.execute(db);
    },
  },
  "0002_export_revisions": {
    async up(db) {
      // The transcript revision a file was rendered from (decision 0021). pinned: the user
      // asked for that revision; otherwise it was "the current one", which a later edit
      // (TranscriptEdited) makes stale.
      await sql`alter table exports add column revision integer`.execute(db);
      await sql`alter table exports add column pinned boolean not null default false`.execute(db);
    },
  },
  // RTTM: the speaker turns, for diarization tools and scoring.
  "0003_export_rttm": {
    async up(db) {
      await sql`alter table exports drop constraint exports_format_check`.execute(db);
      await sql`alter table exports add constraint exports_format_check check (format in ('txt', 'docx', 'pdf', 'srt', 'vtt', 'json', 'rttm'))`.execute(db);
    },
  },
  // The formats are the registry's (domain/formats.ts), which refuses any other before a
  // row is written; a check listing them again would make each new format a migration.
  "0004_export_format_from_registry": {
    async up(db) {
      await sql`alter table exports drop constraint exports_format_check`.execute(db);
    },
  },
};
