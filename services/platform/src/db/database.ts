import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";

// int8 (bigint) columns hold sizes and counts that fit comfortably in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface Database<DB = unknown> {
  readonly db: Kysely<DB>;
  readonly pool: pg.Pool;
  /** Round-trip to PostgreSQL; resolves with the latency in milliseconds. */
  ping(): Promise<number>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** Pool size; a service process rarely needs more than a handful. */
  max?: number;
  applicationName?: string;
}

/** A pg pool and a Kysely instance over it; services write queries with Kysely. */
export function createDatabase<DB>(url: string, options: DatabaseOptions = {}): Database<DB> {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // A connection dropped by a restarting server must not crash the process; the pool
  // replaces it on the next checkout. The pool's own listener covers idle connections only:
  // pg-pool detaches it while a connection is checked out, so a connection ended mid-query
  // (or mid-transaction) would emit 'error' with nobody listening and Node would exit. The
  // query in flight still fails with its own error; the broken connection is dropped on release.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    pool,
    async ping() {
      const started = performance.now();
      await sql`select 1`.execute(db);
      return performance.now() - started;
    },
    async close() {
      await db.destroy();
    },
  };
}
