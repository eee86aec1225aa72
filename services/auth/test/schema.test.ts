import { createDatabase, createLogger, migrateToLatest, outboxMigrations } from "@transcribe/platform";
import { createTestDatabase } from "@transcribe/platform/testing";
import { getMigrations } from "better-auth/db/migration";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authOptions } from "../src/auth.js";
import { authConfigSchema } from "../src/config.js";
import { migrations } from "../src/db/migrations.js";
import { TEST_SECRET } from "./harness.js";

const noMail = { sendMagicLink: async () => {}, send: async () => {} };

/** better-auth's options with every optional feature switched on, so every table and column it may want is planned. */
function fullOptions(db: ReturnType<typeof createDatabase>["db"]) {
  const config = {
    ...authConfigSchema.parse({
      GITHUB_CLIENT_ID: "id",
      GITHUB_CLIENT_SECRET: "secret",
      GOOGLE_CLIENT_ID: "id",
      GOOGLE_CLIENT_SECRET: "secret",
    }),
    NODE_ENV: "test" as const,
  };
  return authOptions({ config, secret: TEST_SECRET, db, mailer: noMail, logger: createLogger("schema-test", "silent") });
}

describe("the auth schema is created by our migrations, not by better-auth", () => {
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: ReturnType<typeof createDatabase>;

  beforeAll(async () => {
    testDb = await createTestDatabase("auth_schema");
    database = createDatabase(testDb.url, { max: 2 });
  });
  afterAll(async () => {
    await database.close();
    await testDb.drop();
  });

  it("on an empty database better-auth would create its tables (the check below is not vacuous)", async () => {
    const plan = await getMigrations(fullOptions(database.db), { throwOnUnsafe: false });
    expect(plan.toBeCreated.map((t) => t.table).sort()).toEqual(["accounts", "api_keys", "rate_limits", "sessions", "users", "verifications"]);
  });

  it("after our migrations better-auth's planner wants no table, column or index", async () => {
    await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
    const plan = await getMigrations(fullOptions(database.db), { throwOnUnsafe: false });
    expect(plan.toBeCreated).toEqual([]);
    expect(plan.toBeAdded).toEqual([]);
    expect(plan.toBeAddedIndexes).toEqual([]);
    expect(plan.unsafeChanges).toEqual([]);
    expect(plan.schemaProblems).toEqual([]);
    expect((await plan.compileMigrations()).trim()).toBe(";");
  });

  it("records inserts and deletes of users in the change log, in the same transaction", async () => {
    const now = new Date();
    await sql`insert into users (id, name, email, email_verified, created_at, updated_at)
              values ('u1', '', 'x@example.com', true, ${now}, ${now})`.execute(database.db);
    await sql`delete from users where id = 'u1'`.execute(database.db);
    const rows = await sql<{ kind: string; user_id: string }>`select kind, user_id from user_changes order by seq`.execute(database.db);
    expect(rows.rows).toEqual([
      { kind: "created", user_id: "u1" },
      { kind: "deleted", user_id: "u1" },
    ]);
  });
});
