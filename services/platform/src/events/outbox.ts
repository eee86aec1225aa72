import { type Generated, type Kysely, sql, type Transaction } from "kysely";
import type { Migrations } from "../db/migrations.js";
import type { Topic } from "./catalog.js";
import { toEnvelope, type EventEnvelope } from "./envelope.js";
import type { EventMessage } from "./catalog.js";

/** The channel enqueueEvents notifies and the relay listens on. */
export const outboxChannel = "platform_outbox";

/**
 * The platform's tables, to be merged into every service's own migrations:
 * `migrateToLatest(db, { ...outboxMigrations, ...serviceMigrations })`. The `0000_`
 * prefix sorts them before any service migration. Kysely refuses a migration that sorts
 * before one already applied, so a later platform migration must also be named to sort
 * after the services' existing ones (or the services must allow unordered migrations).
 */
export const outboxMigrations: Migrations = {
  "0000_platform_001_outbox": {
    async up(db: Kysely<any>) {
      // `seq` gives the relay a total order: created_at is the transaction start time,
      // shared by every event of one transaction, and ids are random.
      await sql`
        create table platform_outbox (
          seq bigint generated always as identity,
          id uuid primary key,
          topic text not null,
          key text not null,
          type text not null,
          payload bytea not null,
          occurred_at timestamptz not null,
          created_at timestamptz not null default now(),
          published_at timestamptz,
          attempts integer not null default 0
        )`.execute(db);
      // The relay only ever scans unpublished rows, normally a handful among many.
      await sql`create index platform_outbox_unpublished on platform_outbox (seq) where published_at is null`.execute(db);
      await sql`create index platform_outbox_published_at on platform_outbox (published_at) where published_at is not null`.execute(db);
      await sql`
        create table platform_processed_events (
          consumer text not null,
          event_id uuid not null,
          processed_at timestamptz not null default now(),
          primary key (consumer, event_id)
        )`.execute(db);
      await sql`create index platform_processed_events_processed_at on platform_processed_events (processed_at)`.execute(db);
    },
  },
  "0000_platform_002_outbox_trace_context": {
    async up(db: Kysely<any>) {
      // The relay publishes from a context of its own; the row carries the writer's trace.
      await sql`alter table platform_outbox add column traceparent text`.execute(db);
    },
  },
};

export interface OutboxTable {
  seq: Generated<string>;
  id: string;
  topic: Topic;
  key: string;
  type: string;
  payload: Uint8Array;
  occurred_at: Date;
  created_at: Generated<Date>;
  published_at: Date | null;
  attempts: Generated<number>;
  traceparent: string | null;
}

export interface ProcessedEventsTable {
  consumer: string;
  event_id: string;
  processed_at: Generated<Date>;
}

/** The platform tables as Kysely sees them; services need not add them to their own DB type. */
export interface PlatformEventTables {
  platform_outbox: OutboxTable;
  platform_processed_events: ProcessedEventsTable;
}

/**
 * Writes events to the outbox inside the caller's transaction, the same one that
 * changes the state they describe: both commit or neither does. The NOTIFY is delivered
 * only on commit, so the relay wakes at once for committed events and never for rolled
 * back ones.
 */
export async function enqueueEvents(
  trx: Transaction<any>,
  events: ReadonlyArray<EventMessage | EventEnvelope>,
): Promise<EventEnvelope[]> {
  if (events.length === 0) return [];
  const envelopes = events.map((e) => ("$typeName" in e ? toEnvelope(e) : e));
  const db = trx as unknown as Transaction<PlatformEventTables>;
  await db
    .insertInto("platform_outbox")
    .values(
      envelopes.map((e) => ({
        id: e.id,
        topic: e.topic,
        key: e.key,
        type: e.type,
        payload: e.payload,
        occurred_at: e.occurredAt,
        traceparent: e.traceparent ?? null,
      })),
    )
    .execute();
  await sql`select pg_notify(${outboxChannel}, '')`.execute(db);
  return envelopes;
}

/** Forgets processed event ids older than the longest possible redelivery. */
export async function pruneProcessedEvents(db: Kysely<any>, olderThanMs: number): Promise<number> {
  const result = await sql`
    delete from platform_processed_events
    where processed_at < now() - make_interval(secs => ${olderThanMs / 1000})`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
