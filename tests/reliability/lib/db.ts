import pg from "pg";

/**
 * The test's own read access to a service database. Queries ride out a PostgreSQL
 * restart (the test keeps watching while the server is down).
 */
export function readDb(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 3_000 });
  pool.on("error", () => {});
  return {
    async rows<T>(text: string, values: unknown[] = [], timeoutMs = 60_000): Promise<T[]> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        try {
          return (await pool.query(text, values)).rows as T[];
        } catch (error) {
          // A mistake in the query (class 42) will not heal by waiting.
          if (Date.now() > deadline || String((error as { code?: string }).code ?? "").startsWith("42")) throw error;
          await new Promise((r) => setTimeout(r, 300));
        }
      }
    },
    close: () => pool.end(),
  };
}
export type ReadDb = ReturnType<typeof readDb>;
