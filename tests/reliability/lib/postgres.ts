import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { repoRoot } from "@transcribe/embedded/config";

/**
 * A real PostgreSQL the test owns, so it can restart it: stop (a fast shutdown, which
 * ends every connection) and start again on the same data directory and port, as an
 * operator's restart or a failover does.
 */
export interface RestartablePostgres {
  readonly port: number;
  urlFor(database: string): string;
  ensureDatabase(name: string): Promise<void>;
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startRestartablePostgres(): Promise<RestartablePostgres> {
  // Under the repository's .data like the test runs' PostgreSQL: as root the server runs
  // as the postgres user, which must be able to reach its data directory.
  await mkdir(path.join(repoRoot, ".data"), { recursive: true });
  const dir = await mkdtemp(path.join(repoRoot, ".data", "reliability-pg-"));
  const port = await freePort();
  const options = { dataDir: path.join(dir, "data"), port, persistent: true };
  let server: EmbeddedPostgresHandle | undefined = await startEmbeddedPostgres(options);
  const baseUrl = server.baseUrl;
  return {
    port,
    urlFor: (database) => `${baseUrl}/${database}`,
    ensureDatabase: (name) => server!.ensureDatabase(name),
    async restart(downMs) {
      await server?.stop();
      server = undefined;
      await new Promise((r) => setTimeout(r, downMs));
      server = await startEmbeddedPostgres(options);
    },
    async stop() {
      await server?.stop();
      server = undefined;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
