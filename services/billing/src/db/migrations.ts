import { sql } from "kysely";
import type { Migrations } from "@transcribe/platform";

/** The billing service's schema: customers, subscriptions and the usage ledger. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {
  "0001_billing": {
    async up(db) {
      // One row per user billing knows about. CheckQuota locks this row (SELECT … FOR
      // UPDATE) so the quota checks of one user run one at a time.
      await sql`
        create table billing_customers (
          user_id text primary key,
          email text,
          stripe_customer_id text unique,
          tier text not null default 'free' check (tier in ('free', 'premium')),
          -- Who set the tier: 'stripe' (webhooks, restore) or 'admin' (admin.ts set-tier).
          tier_source text not null default 'stripe' check (tier_source in ('stripe', 'admin')),
          created_at timestamptz not null default now(),
          updated_at timestamptz not null default now()
        )`.execute(db);
      await sql`
        create table billing_subscriptions (
          stripe_subscription_id text primary key,
          user_id text not null references billing_customers (user_id) on delete cascade,
          stripe_customer_id text not null,
          status text not null,
          price_id text,
          cancel_at_period_end boolean not null default false,
          current_period_end timestamptz,
          updated_at timestamptz not null default now()
        )`.execute(db);
      await sql`create index billing_subscriptions_user on billing_subscriptions (user_id)`.execute(db);
      // The usage ledger: exactly one row per transcription job (job_id is the key), so a
      // redelivered TranscriptionCompleted or a repeated CheckQuota cannot count twice.
      // 'reserved' rows are made by CheckQuota and count against the limit until they are
      // settled (TranscriptionCompleted success), deleted (failed) or expire.
      await sql`
        create table billing_usage (
          job_id text primary key,
          user_id text not null,
          state text not null check (state in ('reserved', 'settled')),
          minutes integer not null check (minutes >= 0),
          audio_seconds double precision not null default 0,
          created_at timestamptz not null default now(),
          settled_at timestamptz
        )`.execute(db);
      await sql`create index billing_usage_user_settled on billing_usage (user_id, settled_at) where state = 'settled'`.execute(db);
      await sql`create index billing_usage_user_reserved on billing_usage (user_id, created_at) where state = 'reserved'`.execute(db);
      // Stripe event ids already applied: a redelivered or replayed webhook changes nothing.
      await sql`
        create table billing_stripe_events (
          event_id text primary key,
          type text not null,
          received_at timestamptz not null default now()
        )`.execute(db);
    },
  },
};
