import type { Migrations } from "@transcribe/platform";
import { sql, type Kysely } from "kysely";

/** The media service's schema: uploaded file records and their objects. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {
  "0001_media_files": {
    async up(db: Kysely<any>) {
      await sql`
        create table files (
          id uuid primary key,
          user_id text not null,
          file_name text not null,
          file_size bigint not null,
          content_type text not null,
          duration double precision not null,
          raw_key text not null unique,
          processed_key text,
          chunks text[] not null default '{}',
          status text not null check (status in ('uploading', 'processing', 'ready', 'failed')),
          error text,
          source_url text,
          upload_expires_at timestamptz,
          attempts integer not null default 0,
          lease_until timestamptz,
          created_at timestamptz not null default now(),
          updated_at timestamptz not null default now()
        )`.execute(db);
      await sql`create index files_user_created on files (user_id, created_at desc, id)`.execute(db);
      // The processing worker and the sweeper only ever look at unfinished records.
      await sql`create index files_unfinished on files (status, updated_at) where status in ('uploading', 'processing')`.execute(db);
    },
  },
};
