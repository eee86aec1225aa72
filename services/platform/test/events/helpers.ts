import { sql, type RawBuilder } from "kysely";
import { createDatabase, migrateToLatest, outboxMigrations, type Database } from "../../src/index.js";
import { createTestDatabase } from "../../src/testing/index.js";

export { fastBus } from "./fast-bus.js";

export interface TestDatabases {
  service: Database<any>;
  serviceUrl: string;
  eventsUrl: string;
  cleanup(): Promise<void>;
}

/**
 * A service database migrated with the platform tables plus a state table, effects
 * and deliveries for assertions, and an empty events database for the bus.
 */
export async function createTestDatabases(prefix: string): Promise<TestDatabases> {
  const serviceDb = await createTestDatabase(`${prefix}_svc`);
  const eventsDb = await createTestDatabase(`${prefix}_events`);
  const service = createDatabase<any>(serviceDb.url, { max: 5 });
  await migrateToLatest(service.db, {
    ...outboxMigrations,
    "0001_test_tables": {
      async up(db) {
        await sql`create table things (id text primary key)`.execute(db);
        await sql`create table effects (consumer text not null, event_id uuid not null, at timestamptz not null default now())`.execute(db);
        await sql`create table deliveries (consumer text not null, event_id uuid not null, pid integer not null, at timestamptz not null default clock_timestamp())`.execute(db);
      },
    },
  });
  return {
    service,
    serviceUrl: serviceDb.url,
    eventsUrl: eventsDb.url,
    async cleanup() {
      await service.close();
      await serviceDb.drop();
      await eventsDb.drop();
    },
  };
}

export async function waitFor<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function count(database: Database<any>, query: RawBuilder<any>): Promise<number> {
  const { rows } = await query.execute(database.db);
  return Number((rows[0] as { n: number | string }).n);
}
