import pg from "pg";
import { Kysely, PostgresDialect, sql } from "kysely";
const pool = new pg.Pool({ connectionString: process.env.URL, max: 10 });
pool.on("error", () => {});
if (process.env.GUARD === "1") pool.on("connect", (client) => client.on("error", () => {}));
const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
for (let i = 0; i < 8; i++) (async () => { for (;;) { try { await db.transaction().execute(async (trx) => { await sql`select pg_sleep(0.05)`.execute(trx); await sql`select 1`.execute(trx); }); } catch { await new Promise((r) => setTimeout(r, 50)); } } })();
setTimeout(() => process.exit(0), 10000).unref();
setInterval(() => {}, 1000);
