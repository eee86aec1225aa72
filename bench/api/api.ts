/**
 * Benchmark 4, API under load: `GET /api/v1/transcriptions?limit=50` (a user with 1,000
 * transcriptions) and `GET /api/v1/transcriptions/{id}` (a completed 2-minute transcript:
 * 25 segments, 300 words with timings) through the product — BFF (session, schemas,
 * ETag) → Connect → transcription service → PostgreSQL — against a minimal Fastify + pg
 * server running the same SQL on the same database (bench/api/direct-server.ts), in the
 * same run, with autocannon at 50 and 200 connections. The product caches the list's and a
 * transcript's JSON (decision 0027); the minimal server runs twice, without a cache and with
 * the same kind of cache (DIRECT_CACHE=1), so each side of a ratio is named for what it
 * caches. Reported per case: requests/s,
 * p50 and p99 latency (medians over the runs) and the product/direct ratios pair by
 * pair. Target: p99 < 50 ms at 200 connections through the product.
 *
 * Protocols between the BFF and the services (decision 0023): the launcher's BFF calls with
 * the default (gRPC); a second and third BFF process, started next to it on the same
 * services, call with Connect over HTTP/2 and Connect over HTTP/1.1 (`RPC_PROTOCOL`). All
 * of them and the direct server take turns in every run.
 *
 *   npm run bench:api                 (3 runs × 5 s per case)
 *   npm run bench:api -- --smoke      (300 requests per case, 1 run)
 *
 * The load generator runs on the same 2 cores as the servers and PostgreSQL: its own CPU
 * is taken from both sides alike.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon, { type Result } from "autocannon";
import pg from "pg";
import { readFileSync } from "node:fs";
import { DEFAULT_RPC_PROTOCOL, type RpcProtocol, rpcProtocols } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { processes, urlVariable } from "@transcribe/embedded/services";
import { getHealth, waitFor } from "../../deploy/embedded/test/stack.js";
import { treeCpu } from "../lib/proc.js";
import { signIn, startProduct, type ApiClient, type Product } from "../lib/product.js";
import { isSmoke, repoRoot, startRecording } from "../lib/results.js";
import { median, printTable, round } from "../lib/stats.js";

const { values } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    runs: { type: "string" },
    duration: { type: "string" },
    /** Protocols between BFF and services to measure, the default first. */
    protocols: { type: "string", default: rpcProtocols.join(",") },
  },
});
const protocols = values.protocols.split(",").filter((p): p is RpcProtocol => (rpcProtocols as readonly string[]).includes(p));
const smoke = isSmoke();
const runs = Number(values.runs ?? (smoke ? 1 : 3));
const duration = Number(values.duration ?? 5);
const connectionLevels = smoke ? [50] : [50, 200];
const TRANSCRIPTIONS = 1000;
const SEGMENTS = 25;
const WORDS_PER_SEGMENT = 12;
const TARGET_P99_MS = 50;

/** 1,000 completed transcriptions of the user, each with a result of 25 timed segments, inserted directly. */
async function seed(product: Product, userId: string): Promise<void> {
  const client = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${product.pgPort}/transcription` });
  await client.connect();
  try {
    const settings = {
      provider: "local",
      model: "whisper-base",
      responseFormat: "verbose_json",
      timestampGranularities: ["segment", "word"],
      temperature: 0,
      language: "en",
      translateToEn: false,
    };
    const vocabulary = "the committee met on tuesday morning to review budget for new library and several members asked whether building could open".split(" ");
    const segments = Array.from({ length: SEGMENTS }, (_, position) => {
      const start = position * 4.8;
      const words = Array.from({ length: WORDS_PER_SEGMENT }, (_, i) => ({
        word: ` ${vocabulary[(position * 7 + i) % vocabulary.length]}`,
        start: round(start + i * 0.38, 2),
        end: round(start + i * 0.38 + 0.33, 2),
        probability: 0.93,
      }));
      return { position, start, end: start + 4.6, text: words.map((w) => w.word).join(""), words };
    });
    await client.query("begin");
    await client.query(
      `insert into transcriptions (id, user_id, file_id, display_name, file_name, content_type, duration, uploaded_at, raw_key, status, settings, created_at, updated_at)
       select gen_random_uuid(), $1, gen_random_uuid(), 'Interview ' || i, 'interview-' || i || '.mp3', 'audio/mpeg', 120,
              now() - i * interval '1 hour', 'raw/' || i, 'completed', $2::jsonb, now() - i * interval '1 hour', now() - i * interval '1 hour'
       from generate_series(1, $3::int) as i`,
      [userId, JSON.stringify(settings), TRANSCRIPTIONS],
    );
    await client.query(
      `insert into transcription_results (id, transcription_id, job_id, text, language, source_language, duration, engine)
       select gen_random_uuid(), t.id, gen_random_uuid(), $2, 'en', 'en', 120, '{"name":"faster-whisper","model":"base"}'::jsonb
       from transcriptions t where t.user_id = $1`,
      [userId, segments.map((s) => s.text.trim()).join(" ")],
    );
    await client.query(`update transcriptions t set result_id = r.id from transcription_results r where r.transcription_id = t.id and t.user_id = $1`, [userId]);
    await client.query(
      `insert into transcription_segments (result_id, position, start_seconds, end_seconds, text, words)
       select r.id, p.pos, p.s, p.e, p.txt, p.w
       from transcription_results r join transcriptions t on t.id = r.transcription_id
       cross join unnest($2::int[], $3::float8[], $4::float8[], $5::text[], $6::jsonb[]) as p(pos, s, e, txt, w)
       where t.user_id = $1`,
      [
        userId,
        segments.map((s) => s.position),
        segments.map((s) => s.start),
        segments.map((s) => s.end),
        segments.map((s) => s.text),
        segments.map((s) => JSON.stringify(s.words)),
      ],
    );
    await client.query("commit");
    // The engine's result is revision 1 (decision 0021): the detail reads the current revision.
    await client.query(
      `insert into transcription_revisions (transcription_id, number, result_id, kind, next_segment_id, created_at)
       select t.id, 1, t.result_id, 'original', $2, now() from transcriptions t where t.user_id = $1`,
      [userId, segments.length],
    );
    await client.query(`update transcriptions set revision = 1 where user_id = $1`, [userId]);
    await client.query("analyze transcriptions; analyze transcription_results; analyze transcription_segments");
  } finally {
    await client.end();
  }
}

async function startDirect(product: Product, userId: string, cached: boolean): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", path.join(repoRoot, "bench/api/direct-server.ts")], {
    cwd: repoRoot,
    env: {
      ...process.env,
      PORT: String(port),
      BENCH_USER_ID: userId,
      DIRECT_CACHE: cached ? "1" : "0",
      DATABASE_URL: `postgres://postgres:postgres@127.0.0.1:${product.pgPort}/transcription`,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  for await (const line of createInterface({ input: child.stdout! })) if (line === "listening") break;
  return { url: `http://127.0.0.1:${port}`, child };
}

/**
 * Another BFF on the launcher's services, calling them with `protocol`: the same entry point
 * and flags as the launcher's (the supervisor's), signed with the install's BFF key.
 */
async function startBff(product: Product, protocol: RpcProtocol): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const keys = JSON.parse(readFileSync(path.join(product.dataDir, "service-keys.json"), "utf8")) as Record<string, unknown>;
  const serviceUrls = Object.fromEntries(
    processes
      .filter((p) => p.portOffset !== "bff")
      .map((p) => [urlVariable(p.name), `http://127.0.0.1:${Number(product.env.SERVICE_PORT_BASE) + (p.portOffset as number)}`]),
  );
  const child = spawn(process.execPath, ["--import", "tsx", "--import", "@transcribe/platform/telemetry-preload", path.join(repoRoot, "services/bff/src/main.ts")], {
    cwd: repoRoot,
    env: {
      ...process.env,
      ...serviceUrls,
      LOG_LEVEL: "warn",
      HOST: "127.0.0.1",
      PORT: String(port),
      PUBLIC_BASE_URL: `http://localhost:${product.env.BFF_PORT}`,
      SERVICE_KEY: JSON.stringify(keys.bff),
      RPC_PROTOCOL: protocol,
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(() => getHealth(url), (h) => h?.status === 200, 60_000, `the ${protocol} BFF healthy`);
  return { url, child };
}

/** The same answer from both servers, so both run the same query (ids and order, count, segment count). */
async function checkSameAnswers(api: ApiClient, directUrl: string, ids: string[]): Promise<void> {
  const direct = async <T>(pathname: string) => (await (await fetch(`${directUrl}${pathname}`)).json()) as T;
  type List = { transcriptions: Array<{ id: string }>; total_count: number };
  const [a, b] = [await api.get<List>("/api/v1/transcriptions?limit=50"), await direct<List>("/api/v1/transcriptions?limit=50")];
  if (a.total_count !== TRANSCRIPTIONS || b.total_count !== TRANSCRIPTIONS || a.transcriptions.map((t) => t.id).join() !== b.transcriptions.map((t) => t.id).join()) {
    throw new Error(`the two servers list differently: ${a.total_count}/${b.total_count}`);
  }
  type Detail = { result: { segments: Array<{ words?: unknown[] }> } };
  const [c, d] = [await api.get<Detail>(`/api/v1/transcriptions/${ids[0]}`), await direct<Detail>(`/api/v1/transcriptions/${ids[0]}`)];
  if (c.result.segments.length !== SEGMENTS || d.result.segments.length !== SEGMENTS || c.result.segments[0]!.words?.length !== WORDS_PER_SEGMENT) {
    throw new Error("the two servers answer the detail differently");
  }
}

interface Case {
  endpoint: "list" | "detail";
  connections: number;
  /** "product": the launcher's BFF (default protocol); "product-<protocol>": another BFF. */
  server: string;
}

async function load(url: string, kase: Case, cookie: string | undefined, ids: string[], measure: { duration?: number; amount?: number }): Promise<Result> {
  let next = 0;
  const pathname = () => (kase.endpoint === "list" ? "/api/v1/transcriptions?limit=50" : `/api/v1/transcriptions/${ids[next++ % ids.length]}`);
  return autocannon({
    url,
    connections: kase.connections,
    ...measure,
    headers: cookie ? { cookie } : {},
    requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: pathname() }) }],
  });
}

async function main(): Promise<void> {
  const recording = startRecording("api", smoke);
  const product = await startProduct();
  let direct: Awaited<ReturnType<typeof startDirect>> | undefined;
  let directCached: Awaited<ReturnType<typeof startDirect>> | undefined;
  const otherBffs = new Map<RpcProtocol, Awaited<ReturnType<typeof startBff>>>();
  try {
    const api = await signIn(product);
    await seed(product, api.userId);
    const page = await api.get<{ transcriptions: Array<{ id: string }> }>("/api/v1/transcriptions?limit=50");
    const ids = page.transcriptions.map((t) => t.id);
    direct = await startDirect(product, api.userId, false);
    directCached = await startDirect(product, api.userId, true);
    await checkSameAnswers(api, direct.url, ids);
    await checkSameAnswers(api, directCached.url, ids);
    for (const protocol of protocols) {
      if (protocol !== DEFAULT_RPC_PROTOCOL) otherBffs.set(protocol, await startBff(product, protocol));
    }
    const protocolOf = (server: string): RpcProtocol => (server === "product" ? DEFAULT_RPC_PROTOCOL : (server.slice("product-".length) as RpcProtocol));
    const productServers = ["product", ...[...otherBffs.keys()].map((p) => `product-${p}`)];
    const urlOf = (server: Case["server"]) =>
      server === "direct" ? direct!.url : server === "direct-cached" ? directCached!.url : server === "product" ? product.baseUrl : otherBffs.get(protocolOf(server))!.url;
    const cookieOf = (server: Case["server"]) => (server.startsWith("direct") ? undefined : api.cookie);
    const directServers = ["direct", "direct-cached"];
    console.log(
      `API under load: ${TRANSCRIPTIONS} transcriptions, list of 50 and detail (${SEGMENTS} segments, ${SEGMENTS * WORDS_PER_SEGMENT} words); ` +
        `${smoke ? "300 requests" : `${duration} s`} per case, ${runs} run(s), connections ${connectionLevels.join(" and ")}`,
    );

    // Warm both servers (JIT, pools, the session cache) before anything is measured.
    for (const server of [...productServers, ...directServers]) {
      for (const endpoint of ["list", "detail"] as const) {
        await load(urlOf(server), { endpoint, connections: 20, server }, cookieOf(server), ids, { amount: 500 });
      }
    }

    const samples: Array<Case & { run: number; rps: number; p50: number; p99: number; errors: number; non2xx: number; total: number; cpuCores: Record<string, number> }> = [];
    for (let run = 0; run < runs; run++) {
      for (const endpoint of ["list", "detail"] as const) {
        for (const connections of connectionLevels) {
          // Every server in turn, each run starting from another one.
          const all = [...productServers, ...directServers];
          const servers = all.map((_, i) => all[(i + run + endpoint.length + connections) % all.length]!);
          for (const server of servers) {
            const kase = { endpoint, connections, server };
            // CPU of every process on the path: the product's (PostgreSQL included, which both servers use) and the direct server's.
            const cpu = [
              treeCpu(product.stack.child.pid!),
              treeCpu(direct!.child.pid!),
              treeCpu(directCached!.child.pid!),
              ...[...otherBffs.values()].map((b) => treeCpu(b.child.pid!)),
            ];
            const started = performance.now();
            const result = await load(urlOf(server), kase, cookieOf(server), ids, smoke ? { amount: 300 } : { duration });
            const elapsed = (performance.now() - started) / 1000;
            const cpuCores = Object.fromEntries(
              [
                ...cpu[0]!.byProcess(),
                ...cpu[1]!.byProcess().map((p) => ({ ...p, name: p.name === "node" ? "direct server" : p.name })),
                ...cpu[2]!.byProcess().map((p) => ({ ...p, name: p.name === "node" ? "direct server (cached)" : p.name })),
                ...cpu.slice(3).flatMap((c, i) => c.byProcess().map((p) => ({ ...p, name: `bff (${[...otherBffs.keys()][i]})` }))),
              ]
                .filter((p) => p.seconds > 0)
                .map((p) => [p.name, round(p.seconds / elapsed, 3)]),
            );
            const sample = {
              ...kase,
              run,
              rps: result.requests.average,
              p50: result.latency.p50,
              p99: result.latency.p99,
              errors: result.errors + result.timeouts,
              non2xx: result.non2xx,
              total: result.requests.total,
              cpuCores,
            };
            // autocannon's average over whole seconds is 0 for runs shorter than a second.
            if (smoke) sample.rps = result.requests.total / Math.max(result.duration, 0.001);
            samples.push(sample);
            console.log(`  run ${run + 1} ${endpoint} ${connections} conn ${server}: ${round(sample.rps)} req/s, p50 ${sample.p50} ms, p99 ${sample.p99} ms${sample.errors || sample.non2xx ? `, ${sample.errors} errors, ${sample.non2xx} non-2xx` : ""}`);
          }
        }
      }
    }

    const rows = (["list", "detail"] as const).flatMap((endpoint) =>
      connectionLevels.map((connections) => {
        const pick = (server: Case["server"]) => samples.filter((s) => s.endpoint === endpoint && s.connections === connections && s.server === server);
        const [p, d, c] = [pick("product"), pick("direct"), pick("direct-cached")];
        const pairs = p.map((ps) => [ps, d.find((ds) => ds.run === ps.run)!] as const);
        const cachedPairs = p.map((ps) => [ps, c.find((cs) => cs.run === ps.run)!] as const);
        const productP99 = median(p.map((s) => s.p99));
        /** Cores each process kept busy while the product answered (median over the runs). */
        const coresOf = (samples: typeof p) =>
          Object.fromEntries(
            [...new Set(samples.flatMap((s) => Object.keys(s.cpuCores)))]
              .map((name) => [name, round(median(samples.map((s) => s.cpuCores[name] ?? 0)), 2)] as const)
              .filter(([, cores]) => cores >= 0.01)
              .sort((a, b) => b[1] - a[1]),
          );
        const hasTarget = connections === 200;
        return {
          endpoint,
          connections,
          productRps: round(median(p.map((s) => s.rps))),
          productP50: round(median(p.map((s) => s.p50)), 1),
          productP99: round(productP99, 1),
          directRps: round(median(d.map((s) => s.rps))),
          directP50: round(median(d.map((s) => s.p50)), 1),
          directP99: round(median(d.map((s) => s.p99)), 1),
          /** Product throughput as a share of the direct server's (pair by pair, median). */
          rpsRatio: round(median(pairs.map(([a, b]) => a.rps / b.rps)), 3),
          /** Product p99 over direct p99 (pair by pair, median). */
          p99Ratio: round(median(pairs.map(([a, b]) => a.p99 / b.p99)), 2),
          cachedDirectRps: round(median(c.map((s) => s.rps))),
          cachedDirectP50: round(median(c.map((s) => s.p50)), 1),
          cachedDirectP99: round(median(c.map((s) => s.p99)), 1),
          /** Product throughput as a share of the cached direct server's (pair by pair, median). */
          cachedRpsRatio: round(median(cachedPairs.map(([a, b]) => a.rps / b.rps)), 3),
          cachedP99Ratio: round(median(cachedPairs.map(([a, b]) => a.p99 / b.p99)), 2),
          productCpuCores: coresOf(p),
          directCpuCores: coresOf(d),
          failures: [...p, ...d, ...c].reduce((n, s) => n + s.errors + s.non2xx, 0),
          requests: [...p, ...d, ...c].reduce((n, s) => n + s.total, 0),
          target: hasTarget ? TARGET_P99_MS : null,
          targetMet: hasTarget ? productP99 < TARGET_P99_MS : null,
        };
      }),
    );
    /** The same requests through each protocol between BFF and services, against the direct server of the same run. */
    const protocolRows = (["list", "detail"] as const).flatMap((endpoint) =>
      connectionLevels.flatMap((connections) =>
        productServers.map((server) => {
          const pick = (name: string) => samples.filter((s) => s.endpoint === endpoint && s.connections === connections && s.server === name);
          const [p, d] = [pick(server), pick("direct")];
          const pairs = p.map((ps) => [ps, d.find((ds) => ds.run === ps.run)!] as const);
          return {
            endpoint,
            connections,
            protocol: protocolOf(server),
            rps: round(median(p.map((s) => s.rps))),
            p50: round(median(p.map((s) => s.p50)), 1),
            p99: round(median(p.map((s) => s.p99)), 1),
            rpsRatio: round(median(pairs.map(([a, b]) => a.rps / b.rps)), 3),
            failures: p.reduce((n, s) => n + s.errors + s.non2xx, 0),
          };
        }),
      ),
    );
    printTable(
      protocolRows.map((r) => ({ endpoint: r.endpoint, conn: r.connections, protocol: r.protocol, "req/s": r.rps, "p50 ms": r.p50, "p99 ms": r.p99, "/direct": r.rpsRatio, failed: r.failures })),
    );
    printTable(
      rows.map((r) => ({
        endpoint: r.endpoint,
        conn: r.connections,
        "product req/s": r.productRps,
        "p50 ms": r.productP50,
        "p99 ms": r.productP99,
        "direct req/s": r.directRps,
        "direct p50": r.directP50,
        "direct p99": r.directP99,
        "req/s ratio": r.rpsRatio,
        "p99 ratio": r.p99Ratio,
        "cached direct req/s": r.cachedDirectRps,
        "cached direct p99": r.cachedDirectP99,
        "req/s ratio (cached)": r.cachedRpsRatio,
        failed: r.failures,
        "p99 < 50 ms": r.targetMet === null ? "no target" : r.targetMet ? "met" : "NOT MET",
      })),
    );
    await recording.finish({ transcriptions: TRANSCRIPTIONS, segments: SEGMENTS, words: SEGMENTS * WORDS_PER_SEGMENT, durationSeconds: smoke ? null : duration, runs, defaultProtocol: DEFAULT_RPC_PROTOCOL, rows, protocolRows, samples });
    if (rows.some((r) => r.failures > 0) || protocolRows.some((r) => r.failures > 0)) {
      console.error("some requests failed: the figures above are not valid");
      process.exitCode = 1;
    }
  } finally {
    direct?.child.kill("SIGTERM");
    directCached?.child.kill("SIGTERM");
    for (const bff of otherBffs.values()) bff.child.kill("SIGTERM");
    await product.stop();
  }
}

await main();
