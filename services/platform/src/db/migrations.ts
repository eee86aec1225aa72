import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import { AppError } from "../errors.js";

export type Migrations = Record<string, Migration>;

/**
 * Applies a service's migrations with Kysely's migrator (which takes a PostgreSQL
 * advisory lock, so replicas starting together do not race). Migrations are listed in
 * code, keyed by a sortable name, rather than discovered on disk, so a bundled or
 * containerised service carries exactly the migrations it was built with.
 */
export async function migrateToLatest(db: Kysely<any>, migrations: Migrations): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  // Unordered: platform migrations (outbox) and a service's own interleave by name, and a
  // platform migration added later must still run on databases that already have newer ones.
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results = [] } = await migrator.migrateToLatest();
  const failed = results.find((r) => r.status === "Error");
  if (error || failed) {
    const cause = error instanceof Error ? error.message : String(error ?? "unknown error");
    throw new AppError("internal", `Migration ${failed?.migrationName ?? ""} failed: ${cause}`.replace("  ", " "));
  }
  return results.filter((r) => r.status === "Success").map((r) => r.migrationName);
}
