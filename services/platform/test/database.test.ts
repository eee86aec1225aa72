import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase, migrateToLatest, type Database } from "../src/index.js";
import { createTestDatabase } from "../src/testing/index.js";

describe("database and migrations (real PostgreSQL)", () => {
  let database: Database<any>;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const created = await createTestDatabase("platform_db");
    drop = created.drop;
    database = createDatabase(created.url);
  });
  afterAll(async () => {
    await database.close();
    await drop();
  });

  const migrations = {
      "0001_create_things": {
        up: async (db: any) => {
          await db.schema.createTable("things").addColumn("id", "integer", (c: any) => c.primaryKey()).execute();
        },
      },
      "0002_add_name": {
        up: async (db: any) => {
          await db.schema.alterTable("things").addColumn("name", "text").execute();
        },
      },
  };

  it("applies pending migrations once and in order", async () => {
    expect(await migrateToLatest(database.db, migrations)).toEqual(["0001_create_things", "0002_add_name"]);
    expect(await migrateToLatest(database.db, migrations)).toEqual([]);
    await sql`insert into things (id, name) values (1, 'a')`.execute(database.db);
    expect(await database.ping()).toBeGreaterThanOrEqual(0);
  });

  it("reports a failing migration by name", async () => {
    const broken = {
      ...migrations,
      "0003_broken": { up: async (db: any) => void (await sql`select * from no_such_table`.execute(db)) },
    };
    await expect(migrateToLatest(database.db, broken)).rejects.toThrow(/0003_broken/);
  });
});
