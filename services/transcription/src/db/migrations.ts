import type { Migrations } from "@transcribe/platform";
import { sql, type Kysely } from "kysely";

/** The transcription service's schema: transcriptions, results and jobs. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {
  "0001_transcriptions": {
    async up(db: Kysely<any>) {
      // The row a user sees. status mirrors the latest job's status (see domain/status.ts);
      // deleted rows stay (soft delete) until the user is purged.
      await sql`
        create table transcriptions (
          id uuid primary key,
          user_id text not null,
          file_id uuid not null,
          display_name text not null,
          file_name text not null,
          content_type text,
          duration double precision not null default 0,
          uploaded_at timestamptz not null,
          raw_key text not null default '',
          processed_key text,
          status text not null check (status in ('pending','processing','transcribing','completed','failed','deleted')),
          error text,
          current_job_id uuid,
          settings jsonb not null,
          result_id uuid,
          created_at timestamptz not null default now(),
          updated_at timestamptz not null default now(),
          deleted_at timestamptz
        )`.execute(db);
      await sql`create index transcriptions_user_created on transcriptions (user_id, created_at desc) where status <> 'deleted'`.execute(db);
      await sql`create index transcriptions_file on transcriptions (file_id)`.execute(db);

      // One attempt series of a provider over a transcription. The worker leases rows:
      // lease_owner + lease_expires_at, renewed by heartbeats; an expired lease is taken
      // over by any worker. attempts counts leases; finished rows keep their outcome.
      await sql`
        create table transcription_jobs (
          id uuid primary key,
          transcription_id uuid not null references transcriptions (id) on delete cascade,
          user_id text not null,
          settings jsonb not null,
          engine_model text not null,
          status text not null check (status in ('pending','processing','transcribing','completed','failed','cancelled')),
          attempts integer not null default 0,
          max_attempts integer not null,
          run_after timestamptz not null default now(),
          lease_owner text,
          lease_expires_at timestamptz,
          last_error text,
          started_event_sent boolean not null default false,
          created_at timestamptz not null default now(),
          started_at timestamptz,
          finished_at timestamptz
        )`.execute(db);
      await sql`
        create index transcription_jobs_runnable on transcription_jobs (run_after)
        where status in ('pending','processing','transcribing')`.execute(db);
      await sql`create index transcription_jobs_transcription on transcription_jobs (transcription_id)`.execute(db);
      await sql`create index transcription_jobs_user on transcription_jobs (user_id)`.execute(db);

      // Finished windows of a long job, so a worker that takes over resumes after them.
      await sql`
        create table transcription_job_chunks (
          job_id uuid not null references transcription_jobs (id) on delete cascade,
          chunk_index integer not null,
          result jsonb not null,
          created_at timestamptz not null default now(),
          primary key (job_id, chunk_index)
        )`.execute(db);

      await sql`
        create table transcription_results (
          id uuid primary key,
          transcription_id uuid not null references transcriptions (id) on delete cascade,
          job_id uuid not null unique,
          text text not null,
          language text not null,
          source_language text not null,
          duration double precision not null,
          engine jsonb not null,
          dropped jsonb not null default '[]',
          created_at timestamptz not null default now()
        )`.execute(db);
      await sql`create index transcription_results_transcription on transcription_results (transcription_id)`.execute(db);

      await sql`
        create table transcription_segments (
          result_id uuid not null references transcription_results (id) on delete cascade,
          position integer not null,
          start_seconds double precision not null,
          end_seconds double precision not null,
          text text not null,
          words jsonb not null default '[]',
          primary key (result_id, position)
        )`.execute(db);
    },
  },
  // Speakers (decision 0019): who said each segment and word, the names people give them,
  // why none were found, and jobs that only identify speakers on a finished transcript.
  "0002_speakers": {
    async up(db: Kysely<any>) {
      await sql`alter table transcription_segments add column speaker text`.execute(db);
      await sql`alter table transcription_results add column speakers jsonb not null default '[]'`.execute(db);
      await sql`alter table transcription_results add column speakers_note text`.execute(db);
      await sql`alter table transcription_jobs add column kind text not null default 'transcribe' check (kind in ('transcribe', 'diarize'))`.execute(db);
    },
  },
  // Worker pools (decision 0021): each job names the pool whose workers may lease it, set
  // from its model when it is created; jobs already queued stay on the CPU pool. Numbered
  // after 0003_engine_status and 0004_revisions_and_search, which other branches add.
  "0005_worker_pools": {
    async up(db: Kysely<any>) {
      await sql`alter table transcription_jobs add column pool text not null default 'cpu' check (pool in ('cpu', 'gpu'))`.execute(db);
      await sql`
        create index transcription_jobs_runnable_pool on transcription_jobs (pool, run_after)
        where status in ('pending','processing','transcribing')`.execute(db);
    },
  },
};
