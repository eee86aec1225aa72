import type { Migrations } from "@transcribe/platform";
import { type Kysely, sql } from "kysely";

/**
 * The auth service's schema: users, sessions, accounts and verifications (better-auth,
 * under our table and column names: see db/schema.ts), better-auth's rate-limit
 * counters, and the user change log behind TrackUserSignup and UserDeleted.
 * Append new migrations; never edit applied ones. test/schema.test.ts fails when
 * better-auth would still add a table, a column or an index.
 */
export const migrations: Migrations = {
  "0001_auth_001_better_auth": {
    async up(db: Kysely<any>) {
      await sql`
        create table users (
          id text primary key,
          name text not null,
          email text not null unique,
          email_verified boolean not null,
          image text,
          created_at timestamptz not null default current_timestamp,
          updated_at timestamptz not null default current_timestamp
        )`.execute(db);
      await sql`
        create table sessions (
          id text primary key,
          expires_at timestamptz not null,
          token text not null unique,
          created_at timestamptz not null default current_timestamp,
          updated_at timestamptz not null,
          ip_address text,
          user_agent text,
          user_id text not null references users (id) on delete cascade
        )`.execute(db);
      await sql`create index sessions_user_id_idx on sessions (user_id)`.execute(db);
      await sql`
        create table accounts (
          id text primary key,
          account_id text not null,
          provider_id text not null,
          user_id text not null references users (id) on delete cascade,
          access_token text,
          refresh_token text,
          id_token text,
          access_token_expires_at timestamptz,
          refresh_token_expires_at timestamptz,
          scope text,
          password text,
          created_at timestamptz not null default current_timestamp,
          updated_at timestamptz not null
        )`.execute(db);
      await sql`create index accounts_user_id_idx on accounts (user_id)`.execute(db);
      // One provider identity belongs to one user; better-auth checks this before
      // linking, the constraint makes a race between two links harmless.
      await sql`create unique index accounts_provider_account_unique on accounts (provider_id, account_id)`.execute(db);
      await sql`
        create table verifications (
          id text primary key,
          identifier text not null,
          value text not null,
          expires_at timestamptz not null,
          created_at timestamptz not null default current_timestamp,
          updated_at timestamptz not null default current_timestamp
        )`.execute(db);
      await sql`create index verifications_identifier_idx on verifications (identifier)`.execute(db);
      await sql`create index verifications_expires_at_idx on verifications (expires_at)`.execute(db);
      await sql`
        create table rate_limits (
          id text primary key,
          key text not null unique,
          count integer not null,
          last_request bigint not null
        )`.execute(db);
    },
  },
  "0001_auth_002_user_changes": {
    async up(db: Kysely<any>) {
      // Every insert into or delete from users, whatever code path did it (magic link,
      // password sign-up, social sign-in, a deletion link, an operator's SQL), leaves a
      // row here in the same transaction. user-changes.ts turns the rows into
      // TrackUserSignup / UserDeleted in the outbox; event_id makes that idempotent.
      await sql`
        create table user_changes (
          seq bigint generated always as identity primary key,
          event_id uuid not null default gen_random_uuid(),
          kind text not null check (kind in ('created', 'deleted')),
          user_id text not null,
          occurred_at timestamptz not null default now()
        )`.execute(db);
      await sql`
        create function record_user_change() returns trigger language plpgsql as $$
        begin
          if tg_op = 'INSERT' then
            insert into user_changes (kind, user_id) values ('created', new.id);
          else
            insert into user_changes (kind, user_id) values ('deleted', old.id);
          end if;
          return null;
        end
        $$`.execute(db);
      await sql`
        create trigger users_record_change after insert or delete on users
        for each row execute function record_user_change()`.execute(db);
    },
  },
  "0001_auth_003_api_keys": {
    async up(db: Kysely<any>) {
      // @better-auth/api-key's table under our names (db/schema.ts). key holds the
      // SHA-256 of the secret, never the secret. Keys go with their user.
      await sql`
        create table api_keys (
          id text primary key,
          config_id text not null default 'default',
          name text,
          start text,
          user_id text not null references users (id) on delete cascade,
          prefix text,
          key text not null,
          refill_interval integer,
          refill_amount integer,
          last_refill_at timestamptz,
          enabled boolean default true,
          rate_limit_enabled boolean default true,
          rate_limit_time_window integer default 86400000,
          rate_limit_max integer default 10,
          request_count integer default 0,
          remaining integer,
          last_request timestamptz,
          expires_at timestamptz,
          created_at timestamptz not null,
          updated_at timestamptz not null,
          permissions text,
          metadata text
        )`.execute(db);
      await sql`create index api_keys_config_id_idx on api_keys (config_id)`.execute(db);
      await sql`create index api_keys_user_id_idx on api_keys (user_id)`.execute(db);
      await sql`create unique index api_keys_key_idx on api_keys (key)`.execute(db);
    },
  },
};
