/**
 * Transcript search and edit-save benchmark (decision 0021), on a real embedded PostgreSQL
 * with the transcription service's own migrations and code.
 *
 *   npm run bench:search                     # full: 10,000 one-hour transcripts
 *   npm run bench:search -- --smoke          # 50 transcripts, a few queries: checks the script works
 *   tsx bench/search/search.ts --transcripts 2000 --queries 100
 *   npm run bench:search -- --data-dir /work/tmp/search-bench   # keep the corpus, reuse it next run
 *
 * With --data-dir the embedded PostgreSQL's data directory is kept there. The corpus is
 * generated on the schema as it was before search-speed changes (migrations up to
 * 0005) and the later migrations then run over it, as they would on a deployed
 * database with data; a later run finds the corpus (same --transcripts) and only runs
 * migrations it has not seen, so the ~13 minutes of generation are paid once.
 *
 * Search: one user owns --transcripts transcripts of one hour each (360 segments of 25
 * words, the length of Whisper's segments in speech at 150 words a minute), generated in
 * the database with generate_series from a 20,000-word vocabulary with a Zipf-like
 * (log-uniform) frequency, English configuration; a second user owns 10% as many, so the
 * user filter has something to exclude. Queries are words drawn from three frequency
 * bands (rare, medium, common), two-word queries and accented spellings, each timed through
 * the service's RPC (TranscriptionService.SearchTranscripts over Connect: query, count,
 * ts_headline snippets, page of 20). Target: p95 under 50 ms.
 *
 * Save: one two-hour transcript (1,500 segments, 20,000 timed words) stored as the worker
 * stores a result; then --saves one-word corrections, each based on the current revision,
 * through TranscriptionService.SaveTranscript (load, diff and time the words, store the
 * revision as a delta, reindex the touched segment, outbox event, and the changed segments
 * back, patched into the client's copy as the web editor does).
 * Target: p95 under 200 ms.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { createLogger, createServiceClient, migrateToLatest, outboxMigrations, startEmbeddedPostgres, startServiceServer } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { MediaService } from "@transcribe/proto/media/v1/media";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { migrations } from "@transcribe/transcription/db/migrations";
import type { TranscriptionDB } from "@transcribe/transcription/db/schema";
import { transcriptionServiceImpl } from "@transcribe/transcription/rpc/transcription-service";
import { MAX_COUNTED } from "@transcribe/transcription/search";
import { completedTranscriptionIn } from "./two-hour.js";
import { isSmoke, startRecording } from "../lib/results.js";

const logger = createLogger("bench-search", "warn");
const smoke = isSmoke();
const { values: args } = parseArgs({
  options: {
    transcripts: { type: "string" },
    queries: { type: "string" },
    saves: { type: "string" },
    "saves-only": { type: "boolean" },
    "data-dir": { type: "string" },
  },
  strict: false,
});
const TRANSCRIPTS = Number(args.transcripts ?? (smoke ? 50 : 10_000));
const QUERIES = Number(args.queries ?? (smoke ? 10 : 300));
const SAVES = Number(args.saves ?? (smoke ? 5 : 50));
/** Only the save half, on a database without the search corpus (results: search-save.json). */
const SAVES_ONLY = args["saves-only"] === true;
/** Keep (and reuse) the database here instead of a temporary directory. */
const DATA_DIR = typeof args["data-dir"] === "string" ? path.resolve(args["data-dir"]) : undefined;
const SEGMENTS_PER_HOUR = 360;
const WORDS_PER_SEGMENT = 25;
const VOCABULARY = 20_000;
/** Distinct sentences the segments draw from, so even a rare word is said in hundreds of segments. */
const SENTENCES = 4_000;
const SEARCH_TARGET_P95_MS = 50;
const SAVE_TARGET_P95_MS = 200;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
function summary(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b);
  const round = (n: number) => Math.round(n * 10) / 10;
  return { n: sorted.length, p50: round(percentile(sorted, 50)), p95: round(percentile(sorted, 95)), p99: round(percentile(sorted, 99)), max: round(sorted.at(-1)!) };
}

async function measureSaves(db: Kysely<TranscriptionDB>, client: ReturnType<typeof createServiceClient<typeof TranscriptionService>>) {
  const editor = "bench-editor";
  const id = await completedTranscriptionIn(db, editor, { segments: smoke ? 60 : 1500, words: smoke ? 800 : 20_000, seconds: smoke ? 300 : 7200 });
  const saveTimes: number[] = [];
  let base = (await client.getTranscription({ userId: editor, id })).transcription!.result!;
  for (let i = 0; i < SAVES; i++) {
    const edits = base.segments.map((s) => ({ id: s.id, text: s.text }));
    const target = (i * 37) % edits.length;
    const words = edits[target]!.text.split(" ");
    words[(i * 7) % words.length] = `corrected${i}`;
    edits[target]!.text = words.join(" ");
    const started = performance.now();
    const saved = await client.saveTranscript({ userId: editor, id, baseRevision: base.revision, segments: edits, changesOnly: true });
    // The answer holds the changed segments and the order, as the editor patches its copy.
    const byId = new Map([...base.segments, ...saved.result!.segments].map((s) => [s.id, s]));
    saveTimes.push(performance.now() - started);
    base = { ...saved.result!, segments: saved.segmentIds.map((sid) => byId.get(sid)!) };
  }
  const saveSummary = summary(saveTimes);
  console.log(`save (2-hour transcript, one word) ${JSON.stringify(saveSummary)} (target p95 < ${SAVE_TARGET_P95_MS} ms)`);
  return { targetP95Ms: SAVE_TARGET_P95_MS, segments: base.segments.length, words: base.segments.reduce((n, s) => n + s.words.length, 0), ...saveSummary };
}

async function main() {
  const recording = startRecording(SAVES_ONLY ? "search-save" : "search", smoke);
  if (DATA_DIR) await mkdir(DATA_DIR, { recursive: true });
  const work = DATA_DIR ?? (await mkdtemp(path.join(os.tmpdir(), "search-bench-")));
  const postgres = await startEmbeddedPostgres({ dataDir: path.join(work, "pg"), port: await freePort(), persistent: DATA_DIR !== undefined });
  const pool = new pg.Pool({ connectionString: postgres.urlFor("transcription"), max: 4 });
  // Stopping PostgreSQL at the end ends idle connections; that is not a failure of the run.
  pool.on("error", () => {});
  const db = new Kysely<TranscriptionDB>({ dialect: new PostgresDialect({ pool }) });
  let server: Awaited<ReturnType<typeof startServiceServer>> | undefined;
  try {
    await postgres.ensureDatabase("transcription");
    // The corpus is generated on the schema before 0006 (see the header); an existing one
    // is kept when it has the size asked for.
    const existing = await sql<{ n: number | null }>`select to_regclass('bench_corpus') is not null as n`.execute(db);
    const corpusTranscripts = existing.rows[0]!.n ? (await sql<{ n: number }>`select transcripts as n from bench_corpus`.execute(db)).rows[0]!.n : undefined;
    if (!SAVES_ONLY && corpusTranscripts !== undefined && corpusTranscripts !== TRANSCRIPTS)
      throw new Error(`${work} holds a corpus of ${corpusTranscripts} transcripts; remove it or pass --transcripts ${corpusTranscripts}`);
    const reuse = !SAVES_ONLY && corpusTranscripts === TRANSCRIPTS;
    const corpusMigrations = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < "0006"));
    await migrateToLatest(db, { ...outboxMigrations, ...(SAVES_ONLY || reuse ? migrations : corpusMigrations) });
    server = await startServiceServer({
      name: "transcription",
      host: "127.0.0.1",
      port: 0,
      logger,
      routes: (router) =>
        router.service(
          TranscriptionService,
          transcriptionServiceImpl({
            db,
            media: createServiceClient(MediaService, "http://127.0.0.1:9"),
            catalog: { locations: { explicit: {}, modelsDir: "/nonexistent", dataModelsDir: "/nonexistent", allowDownload: false }, engines: new Set(["local"]) },
            maxAttempts: 1,
            logger,
          }),
        ),
    });
    const client = createServiceClient(TranscriptionService, server.url, { timeoutMs: 60_000 });

    if (SAVES_ONLY) {
      const save = await measureSaves(db, client);
      await recording.finish({ save });
      return;
    }

    // ---- generate ------------------------------------------------------------------
    const owner = "bench-user";
    const other = "bench-other";
    const generateStarted = Date.now();
    let generateSeconds: number;
    if (reuse) {
      console.log(`reusing the corpus in ${work}`);
      generateSeconds = (await sql<{ s: number }>`select generate_seconds as s from bench_corpus`.execute(db)).rows[0]!.s;
      // The save half's transcripts of earlier runs go, so the corpus is the same every run.
      await sql`delete from transcriptions where user_id = 'bench-editor'`.execute(db);
      await sql`vacuum analyze transcription_search_segments`.execute(db);
      await sql`vacuum analyze transcriptions`.execute(db);
    } else {
    await sql`set maintenance_work_mem = '512MB'`.execute(db);
    await sql`create table vocab as
      select n, left(translate(md5(n::text), '0123456789', 'ghijklmnop'), 4 + n % 6) as w from generate_series(1, ${VOCABULARY}) n`.execute(db);
    // SENTENCES distinct sentences; segments take them by a hash of their place.
    await sql`create table sentences as
      select s, string_agg(v.w, ' ' order by k) as text
      from generate_series(0, ${SENTENCES - 1}) s
      cross join generate_series(1, ${WORDS_PER_SEGMENT}) k
      join vocab v on v.n = greatest(1, floor(exp(((hashint8(s::bigint * 31 + k) & 2147483647)::float8 / 2147483647) * ln(${VOCABULARY})))::int)
      group by s`.execute(db);
    for (const [user, count] of [
      [owner, TRANSCRIPTS],
      [other, Math.max(1, Math.round(TRANSCRIPTS / 10))],
    ] as const) {
      await sql`
        insert into transcriptions (id, user_id, file_id, display_name, file_name, duration, uploaded_at, status, settings, revision, search_config)
        select gen_random_uuid(), ${user}, gen_random_uuid(), 'Recording ' || i || ' ' || (select w from vocab where vocab.n = 1 + (i * 7919) % ${VOCABULARY}),
               'recording.wav', 3600, now(), 'completed', '{"model":"whisper-base","timestampGranularities":["segment","word"]}'::jsonb, 1, 'transcript_english'::regconfig
        from generate_series(1, ${count}) i`.execute(db);
    }
    // Bulk load without the GIN index, then build it as the migration defines it.
    await sql`drop index transcription_search_segments_document`.execute(db);
    await sql`
      insert into transcription_search_segments (transcription_id, user_id, segment_id, start_seconds, end_seconds, text, config)
      select t.id, t.user_id, g, g * 10.0, g * 10.0 + 9.5, st.text, 'transcript_english'::regconfig
      from transcriptions t
      cross join generate_series(0, ${SEGMENTS_PER_HOUR - 1}) g
      join sentences st on st.s = (hashint8(g::bigint * 1000003 + hashtext(t.id::text)) & 2147483647) % ${SENTENCES}`.execute(db);
    await sql`create index transcription_search_segments_document on transcription_search_segments using gin (user_id, document)`.execute(db);
    await sql`drop table sentences`.execute(db);
    generateSeconds = Math.round((Date.now() - generateStarted) / 1000);
    await sql`create table bench_corpus as select ${TRANSCRIPTS}::int as transcripts, ${generateSeconds}::int as generate_seconds`.execute(db);
    // Generated on the pre-0006 schema; the later migrations run over the rows.
    const migrateStarted = Date.now();
    const applied = await migrateToLatest(db, { ...outboxMigrations, ...migrations });
    if (applied.length) console.log(`migrated the corpus: ${applied.join(", ")} in ${Math.round((Date.now() - migrateStarted) / 1000)} s`);
    await sql`vacuum analyze transcription_search_segments`.execute(db);
    await sql`vacuum analyze transcriptions`.execute(db);
    }
    const counts = await sql<{ segments: string; size: string }>`
      select (select count(*) from transcription_search_segments) as segments,
             pg_size_pretty(pg_total_relation_size('transcription_search_segments')) as size`.execute(db);
    console.log(`${reuse ? "reused" : "generated"} ${TRANSCRIPTS} + ${Math.round(TRANSCRIPTS / 10)} transcripts, ${counts.rows[0]!.segments} segments (${counts.rows[0]!.size}), generated in ${generateSeconds} s`);

    // ---- queries ---------------------------------------------------------------------
    // Frequency bands by vocabulary rank (log-uniform: rank r has frequency ~ 1/r).
    const band = async (from: number, to: number, n: number) =>
      (await sql<{ w: string }>`select w from vocab where n between ${from} and ${to} order by hashint4(n) limit ${n}`.execute(db)).rows.map((r) => r.w);
    const per = Math.max(1, Math.floor(QUERIES / 5));
    const rare = await band(5_000, VOCABULARY, per);
    const medium = await band(200, 2_000, per);
    const common = await band(2, 50, per);
    const pairs = (await band(100, 5_000, per * 2)).flatMap((w, i, all) => (i % 2 === 0 && all[i + 1] ? [`${w} ${all[i + 1]}`] : []));
    // The generated words are ASCII; "é" for "e" must still match (unaccent).
    const accented = (await band(300, 8_000, per)).map((w) => w.replace("e", "é"));
    const groups = { rare, medium, common, pairs, accented };

    for (const q of rare.slice(0, 3)) await client.searchTranscripts({ userId: owner, query: q, limit: 20 }); // warm-up
    const results: Record<string, { times: number[]; hits: number[] }> = {};
    const all: number[] = [];
    for (const [name, queries] of Object.entries(groups)) {
      const times: number[] = [];
      const hits: number[] = [];
      for (const query of queries) {
        const started = performance.now();
        const answer = await client.searchTranscripts({ userId: owner, query, limit: 20 });
        const ms = performance.now() - started;
        times.push(ms);
        all.push(ms);
        hits.push(answer.totalCount);
      }
      results[name] = { times, hits };
      const sortedHits = [...hits].sort((a, b) => a - b);
      console.log(`${name.padEnd(9)} ${JSON.stringify(summary(times))} total_count median ${sortedHits[Math.floor(sortedHits.length / 2)]}`);
    }
    const searchSummary = summary(all);
    console.log(`search all ${JSON.stringify(searchSummary)} (target p95 < 50 ms)`);

    const save = await measureSaves(db, client);

    await recording.finish({
      corpus: {
        transcripts: TRANSCRIPTS,
        otherUserTranscripts: Math.round(TRANSCRIPTS / 10),
        segmentsPerTranscript: SEGMENTS_PER_HOUR,
        wordsPerSegment: WORDS_PER_SEGMENT,
        vocabulary: VOCABULARY,
        sentences: SENTENCES,
        segments: Number(counts.rows[0]!.segments),
        tableSize: counts.rows[0]!.size,
        generateSeconds,
        reused: reuse,
      },
      search: {
        targetP95Ms: SEARCH_TARGET_P95_MS,
        countCap: MAX_COUNTED,
        all: searchSummary,
        groups: Object.fromEntries(Object.entries(results).map(([k, v]) => [k, { ...summary(v.times), medianTotalCount: [...v.hits].sort((a, b) => a - b)[Math.floor(v.hits.length / 2)] }])),
      },
      save,
    });
  } finally {
    await server?.close();
    await db.destroy();
    await postgres.stop();
    if (!DATA_DIR) await rm(work, { recursive: true, force: true });
  }
}

await main();
