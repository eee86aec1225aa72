/**
 * The API benchmark's baseline: the least a server can do to answer the same two
 * requests — Fastify and a pg pool on the transcription database, the same SQL the
 * transcription service runs (list: the page and the count; detail: the row, its result,
 * its segments), the same JSON field names, for one user fixed at start. No session
 * check, no BFF, no Connect hop, no schemas, no ETag: what the product adds to this is
 * what the benchmark's ratio shows.
 *
 * With DIRECT_CACHE=1 it keeps the same kind of cache the transcription service keeps
 * (decision 0027), so the product's cached path has a baseline that is cached too: the
 * list's JSON by a fingerprint of the user's rows (one statement per read while they are
 * unchanged: the count and the fingerprint), a transcript's JSON by its row's version (one
 * statement: the ownership check reading xmin and updated_at).
 *
 *   DATABASE_URL=postgres://… BENCH_USER_ID=… PORT=… [DIRECT_CACHE=1] tsx bench/api/direct-server.ts
 */
import Fastify from "fastify";
import pg from "pg";

const userId = process.env.BENCH_USER_ID!;
// The product's pools hold 10 connections (services/platform/src/db/database.ts); so does this one.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({ logger: false });
const cached = process.env.DIRECT_CACHE === "1";
/** JSON bodies by key; the benchmark's few keys need no eviction. */
const cache = new Map<string, string>();

interface Row {
  id: string;
  display_name: string;
  duration: number;
  settings: { model: string; language: string; timestampGranularities: string[] };
  status: string;
  uploaded_at: Date;
  file_id: string;
  file_name: string;
  content_type: string | null;
  result_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const listItem = (row: Row) => ({
  id: row.id,
  display_name: row.display_name,
  duration: row.duration,
  model: row.settings.model,
  status: row.status,
  uploaded_at: row.uploaded_at.toISOString(),
});

app.get<{ Querystring: { limit?: string; offset?: string } }>("/api/v1/transcriptions", async (request, reply) => {
  const limit = Math.min(100, Math.max(1, Number(request.query.limit ?? 20)));
  const offset = Math.max(0, Number(request.query.offset ?? 0));
  if (cached) {
    // The service's listVersion: the count and a fingerprint of the user's rows in one statement.
    const version = await pool.query<{ n: string; fingerprint: string }>(
      `select count(*) filter (where status <> 'deleted') as n,
              count(*)::text || '/' || coalesce(sum(hashtextextended(xmin::text, 0)), 0)::text as fingerprint
       from transcriptions where user_id = $1`,
      [userId],
    );
    const { n, fingerprint } = version.rows[0]!;
    const key = `list/${limit}/${offset}/${fingerprint}`;
    let items = cache.get(key);
    if (!items) {
      const rows = await pool.query<Row>(
        `select * from transcriptions where user_id = $1 and status <> 'deleted' order by created_at desc, id limit $2 offset $3`,
        [userId, limit, offset],
      );
      items = JSON.stringify(rows.rows.map(listItem));
      cache.set(key, items);
    }
    return reply.type("application/json").send(`{"transcriptions":${items},"total_count":${Number(n)}}`);
  }
  const [rows, count] = await Promise.all([
    pool.query<Row>(
      `select * from transcriptions where user_id = $1 and status <> 'deleted'
       order by created_at desc, id limit $2 offset $3`,
      [userId, limit, offset],
    ),
    pool.query<{ n: string }>(`select count(*) as n from transcriptions where user_id = $1 and status <> 'deleted'`, [userId]),
  ]);
  return {
    transcriptions: rows.rows.map(listItem),
    total_count: Number(count.rows[0]!.n),
  };
});

app.get<{ Params: { id: string } }>("/api/v1/transcriptions/:id", async (request, reply) => {
  // The service's findTranscriptionVersioned: the ownership check also reads the row's version.
  const version = cached ? `, xmin::text || '/' || (extract(epoch from updated_at) * 1000000)::bigint::text as row_version` : "";
  const found = await pool.query<Row & { row_version: string }>(
    `select *${version} from transcriptions where id = $1 and user_id = $2 and status <> 'deleted'`,
    [request.params.id, userId],
  );
  const row = found.rows[0];
  if (!row) return reply.code(404).send({ error: { code: "not_found", message: "Transcription not found" } });
  if (!cached) return detail(row);
  const key = `detail/${row.id}/${row.row_version}`;
  let body = cache.get(key);
  if (!body) {
    body = JSON.stringify(await detail(row));
    cache.set(key, body);
  }
  return reply.type("application/json").send(body);
});

async function detail(row: Row) {
  let result = null;
  if (row.result_id) {
    const [results, segments] = [
      await pool.query(`select * from transcription_results where id = $1`, [row.result_id]),
      await pool.query(`select * from transcription_segments where result_id = $1 order by position`, [row.result_id]),
    ];
    const r = results.rows[0];
    const withWords = row.settings.timestampGranularities.includes("word");
    result = {
      id: r.id,
      text: r.text,
      language: r.language,
      duration: r.duration,
      segments: segments.rows.map((s) => ({
        id: s.position,
        start: s.start_seconds,
        end: s.end_seconds,
        text: s.text,
        ...(withWords ? { words: s.words } : {}),
      })),
    };
  }
  return {
    id: row.id,
    display_name: row.display_name,
    status: row.status,
    config: { model: row.settings.model, language: row.settings.language, timestamp_granularities: row.settings.timestampGranularities },
    audio_file: { file_id: row.file_id, file_name: row.file_name, ...(row.content_type ? { content_type: row.content_type } : {}) },
    result,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT) });
process.stdout.write("listening\n");
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    void app.close().then(() => pool.end()).then(() => process.exit(0));
  });
}
