import type { Migrations } from "@transcribe/platform";
import { type Generated, type Kysely, sql } from "kysely";

/** The webhooks service's schema: endpoints and the delivery log. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {
  "0001_webhooks_001_endpoints_deliveries": {
    async up(db: Kysely<any>) {
      // secret signs the deliveries, so it is kept (it is the receiver's to verify with).
      await sql`
        create table webhook_endpoints (
          id uuid primary key,
          user_id text not null,
          url text not null,
          events text[] not null,
          secret text not null,
          created_at timestamptz not null default now()
        )`.execute(db);
      await sql`create index webhook_endpoints_user on webhook_endpoints (user_id, created_at)`.execute(db);
      // One row per (endpoint, event about a job): source_key makes a redelivered or
      // republished event one delivery. id is the webhook-id header (same on every retry).
      await sql`
        create table webhook_deliveries (
          id uuid primary key,
          endpoint_id uuid not null references webhook_endpoints (id) on delete cascade,
          user_id text not null,
          event_type text not null,
          source_key text not null,
          transcription_id text not null,
          payload jsonb not null,
          status text not null check (status in ('pending', 'succeeded', 'failed')),
          attempts integer not null default 0,
          last_status_code integer,
          last_error text,
          next_attempt_at timestamptz,
          give_up_at timestamptz not null,
          locked_until timestamptz,
          delivered_at timestamptz,
          created_at timestamptz not null default now(),
          unique (endpoint_id, source_key)
        )`.execute(db);
      await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending'`.execute(db);
      await sql`create index webhook_deliveries_endpoint on webhook_deliveries (endpoint_id, created_at)`.execute(db);
    },
  },
};

export interface WebhookEndpointsTable {
  id: string;
  user_id: string;
  url: string;
  events: string[];
  secret: string;
  created_at: Generated<Date>;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  user_id: string;
  event_type: string;
  source_key: string;
  transcription_id: string;
  payload: unknown;
  status: "pending" | "succeeded" | "failed";
  attempts: Generated<number>;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  give_up_at: Date;
  locked_until: Date | null;
  delivered_at: Date | null;
  created_at: Generated<Date>;
}

export interface WebhooksDatabase {
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
