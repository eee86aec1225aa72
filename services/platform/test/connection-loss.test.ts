import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDatabase, type Database } from "../src/index.js";
import { createTestDatabase } from "../src/testing/index.js";

// A server restart ends connections that are in the middle of a transaction. That must fail
// the transaction, not the process: an 'error' event with no listener would exit Node (and
// here fail the run with an unhandled error).
let created: Awaited<ReturnType<typeof createTestDatabase>>;
let database: Database<Record<string, never>>;

beforeAll(async () => {
  created = await createTestDatabase("platform_connection_loss");
  database = createDatabase(created.url, { max: 2 });
});
afterAll(async () => {
  await database?.close();
  await created?.drop();
});

it("survives the server ending a connection mid-transaction, and serves the next query", async () => {
  const marker = `connection_loss_${Date.now()}`;
  const victim = database.db.transaction().execute(async (trx) => {
    await sql`select 1`.execute(trx);
    await sql.raw(`select pg_sleep(30) /* ${marker} */`).execute(trx);
  });
  const outcome = victim.then(
    () => "committed",
    (error: Error) => error.message,
  );

  const admin = new pg.Client({ connectionString: created.url });
  await admin.connect();
  try {
    let terminated = 0;
    for (let i = 0; i < 100 && terminated === 0; i++) {
      const result = await admin.query(
        "select pg_terminate_backend(pid) as ok from pg_stat_activity where query like $1 and pid <> pg_backend_pid()",
        [`%${marker}%`],
      );
      terminated = result.rowCount ?? 0;
      if (terminated === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(terminated).toBe(1);
  } finally {
    await admin.end();
  }

  expect(await outcome).not.toBe("committed");
  // Let the connection's late 'error'/'end' events fire before asking again.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const again = await sql<{ x: number }>`select 1 as x`.execute(database.db);
  expect(again.rows[0]).toEqual({ x: 1 });
});
