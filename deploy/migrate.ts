/**
 * Applies one service's migrations and exits: the chart's migrations Job runs it in each
 * service's image before an install or upgrade rolls out, so a failing migration stops
 * the rollout instead of crash-looping new pods. The services still migrate at start
 * (runService), which is a no-op once this has run; the migrator's lock makes the two safe
 * to overlap.
 *
 *   SERVICE=media DATABASE_URL=postgres://… node --import tsx deploy/migrate.ts
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createDatabase, env, migrateToLatest, outboxMigrations, type Migrations } from "@transcribe/platform";
import { z } from "zod";

const config = z
  .object({
    SERVICE: z.string().regex(/^[a-z]+$/, "a service workspace name, e.g. media"),
    DATABASE_URL: env.postgresUrl(),
  })
  .safeParse(process.env);
if (!config.success) {
  for (const issue of config.error.issues) process.stderr.write(`migrate: ${issue.path.join(".")}: ${issue.message}\n`);
  process.exit(1);
}
const { SERVICE, DATABASE_URL } = config.data;

const file = path.resolve(import.meta.dirname, "..", "services", SERVICE, "src", "db", "migrations.ts");
let migrations: Migrations;
try {
  ({ migrations } = (await import(pathToFileURL(file).href)) as { migrations: Migrations });
} catch (error) {
  process.stderr.write(`migrate: ${SERVICE} has no migrations at ${file}: ${(error as Error).message}\n`);
  process.exit(1);
}

const database = createDatabase(DATABASE_URL, { applicationName: `${SERVICE}-migrations`, max: 1 });
try {
  // The same set runService applies: the platform's outbox, then the service's own.
  const applied = await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
  process.stdout.write(`${JSON.stringify({ service: SERVICE, msg: "migrations applied", applied })}\n`);
} catch (error) {
  process.stderr.write(`migrate: ${SERVICE}: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await database.close();
}
