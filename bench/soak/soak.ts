/*
 * Load soak: the whole product (the launcher, as `npm start` runs it) under N simulated
 * people for D seconds. See docs/benchmarks.md ("Load soak") for what it does and judges.
 *
 *   npm run soak                                   50 people, 5 minutes; writes docs/benchmarks.md and bench/results/soak.json
 *   npx tsx bench/soak/soak.ts --users 10 --duration 45 --json /tmp/soak.json   (what CI runs; writes only that file)
 *
 * Options: --users N (50), --duration SECONDS (300), --warmup SECONDS (a quarter of the
 * duration, at most 60), --max-growth-mb MB (64), --write (update the docs; the default
 * with the full 50 × 300 s), --json FILE. Exits 1 when the run fails.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { repoRoot } from "@transcribe/embedded/config";
import { getHealth, newStackDataDir, ownStackEnv, startStack, waitFor } from "../../deploy/embedded/test/stack.js";
import { formatCounts } from "../../tests/reliability/lib/report.js";
import { makeClips } from "../../tests/reliability/lib/speech.js";
import { RequestLog, UserAgent } from "./http-client.js";
import { Mailbox } from "./mailbox.js";
import { judgeMemory, MemorySampler } from "./memory.js";
import { writeBenchmarksSection, writeJson, type SoakResult } from "./report.js";
import { runUser, type JobRecord, type SoakShared } from "./user.js";

const { values: args } = parseArgs({
  options: {
    users: { type: "string", default: "50" },
    duration: { type: "string", default: "300" },
    warmup: { type: "string" },
    "max-growth-mb": { type: "string", default: "64" },
    write: { type: "boolean" },
    json: { type: "string" },
  },
});
const users = Number(args.users);
const durationSeconds = Number(args.duration);
const warmupSeconds = Number(args.warmup ?? Math.min(60, Math.round(durationSeconds / 4)));
const maxGrowthMb = Number(args["max-growth-mb"]);
const full = users >= 50 && durationSeconds >= 300;
const write = args.write ?? full;
/** After the last round may start: time for the queue (one worker) to finish what was started. */
const DRAIN_SECONDS = 240;

const say = (message: string) => process.stdout.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

async function main(): Promise<number> {
  if (users > 200) throw new Error("at most 200 users (one loopback address each: 127.0.0.10-209)");
  const dataDir = await newStackDataDir("soak-");
  const work = await mkdtemp(path.join(os.tmpdir(), "soak-clips-"));
  const env = {
    ...(await ownStackEnv(dataDir)),
    RESTART_DELAY_MS: "1000",
    SKIP_WEB_BUILD: "true",
    // The trial limit is not what is measured; the sign-in rate limits stay on.
    FREE_TRIAL_MINUTES: "1000000",
    // Warnings and errors only: the launcher relays every line, and the soak keeps them.
    LOG_LEVEL: "warn",
    WHISPER_DOWNLOAD: "false",
  };
  say(`${users} people for ${durationSeconds} s (warm-up ${warmupSeconds} s); product data in ${path.relative(repoRoot, dataDir)}`);
  const stack = startStack(env);
  const mailbox = new Mailbox(`http://127.0.0.1:${env.MAILDEV_WEB_PORT}`);
  const log = new RequestLog();
  const agents: UserAgent[] = [];
  let sampler: MemorySampler | undefined;
  try {
    const [clips] = await Promise.all([
      makeClips(work),
      waitFor(() => getHealth(stack.baseUrl), (h) => h?.status === 200, 180_000, "the product to be healthy").catch((error: Error) => {
        throw new Error(`${error.message}\n--- launcher output ---\n${stack.output().slice(-4000)}`);
      }),
    ]);
    say(`healthy at ${stack.baseUrl}`);
    mailbox.start();
    // The sampler's clock starts with the load: warm-up and duration are measured from here.
    sampler = new MemorySampler(dataDir, stack.child.pid!);
    sampler.start(2_000);
    const startedAt = Date.now();
    const shared: SoakShared = {
      mailbox,
      clips,
      jobs: new Map<string, JobRecord>(),
      flowErrors: [],
      endAt: startedAt + durationSeconds * 1000,
      hardStopAt: startedAt + (durationSeconds + DRAIN_SECONDS) * 1000,
      exportFormats: ["txt", "srt", "docx", "pdf"],
      model: "whisper-tiny.en",
    };
    const run = Date.now().toString(36);
    const progress = setInterval(() => {
      const jobs = [...shared.jobs.values()];
      say(
        `${Math.round((Date.now() - startedAt) / 1000)} s: ${log.total()} requests (5xx ${log.withStatus((s) => s >= 500)}), ` +
          `jobs ${jobs.length} started / ${jobs.filter((j) => j.state !== "started").length} ended, broken flows ${shared.flowErrors.length}`,
      );
    }, 15_000);
    const rounds = await Promise.all(
      Array.from({ length: users }, async (_, index) => {
        // People arrive over the first ten seconds, not all in one instant.
        await new Promise((r) => setTimeout(r, (index * 10_000) / users));
        const agent = new UserAgent(stack.baseUrl, `127.0.0.${10 + index}`, log);
        agents.push(agent);
        return runUser(index, `soak-${run}-${index}@example.com`, agent, shared);
      }),
    );
    clearInterval(progress);
    const loadSeconds = Math.round((Date.now() - startedAt) / 1000);
    say(`every person stopped after ${loadSeconds} s`);
    sampler.stop();

    // ---- jobs: every one started ended once ---------------------------------------------
    const db = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${env.EMBEDDED_PG_PORT}/transcription` });
    await db.connect();
    const ids = [...shared.jobs.keys()];
    const rows = (
      await db.query<{ id: string; status: string; error: string | null; results: number; terminal_events: number; jobs: number }>(
        `select t.id, t.status, t.error,
                (select count(*)::int from transcription_results r where r.transcription_id = t.id) as results,
                (select count(*)::int from platform_outbox o join transcription_jobs j on o.key = j.id::text
                  where j.transcription_id = t.id and o.type like '%.TranscriptionCompleted') as terminal_events,
                (select count(*)::int from transcription_jobs j where j.transcription_id = t.id) as jobs
         from transcriptions t where t.id = any($1::uuid[])`,
        [ids],
      )
    ).rows;
    await db.end();
    const byId = new Map(rows.map((r) => [r.id, r]));
    let completed = 0;
    let failedWithReason = 0;
    let lost = 0;
    let duplicated = 0;
    for (const id of ids) {
      const row = byId.get(id);
      const seen = shared.jobs.get(id)!;
      // What the person saw decides; a round abandoned at the end is judged by the row
      // (deleting happens only after the end was seen, so that row still has its status).
      const status = seen.state !== "started" ? seen.state : row?.status;
      const reason = seen.error || row?.error;
      if (status === "completed") completed++;
      else if (status === "failed" && reason) failedWithReason++;
      else lost++;
      if (row && (row.results > 1 || row.terminal_events > 1 || row.jobs > 1)) duplicated++;
    }
    const durations = [...shared.jobs.values()].filter((j) => j.endedAt).map((j) => (j.endedAt! - j.startedAt) / 1000).sort((a, b) => a - b);

    // ---- the verdict -------------------------------------------------------------------
    const memory = judgeMemory(sampler.processes.values(), { fromSeconds: warmupSeconds, untilSeconds: durationSeconds }, maxGrowthMb);
    const latencies = [...log.latencies].sort((a, b) => a - b);
    const pct = (p: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor((latencies.length * p) / 100))] ?? 0);
    const byClass: Record<string, number> = {};
    for (const [key, count] of log.counts) {
      const cls = `${key.slice(key.lastIndexOf(" ") + 1)[0]}xx`;
      byClass[cls] = (byClass[cls] ?? 0) + count;
    }
    const networkErrors = Object.fromEntries(log.failures);
    const reasons: string[] = [];
    if ((byClass["5xx"] ?? 0) > 0) reasons.push(`${byClass["5xx"]} answers were 5xx`);
    if (log.failures.size > 0) reasons.push(`${[...log.failures.values()].reduce((a, b) => a + b, 0)} requests got no answer`);
    if (shared.flowErrors.length > 0) reasons.push(`${shared.flowErrors.length} steps were answered unexpectedly`);
    if (lost > 0) reasons.push(`${lost} jobs lost`);
    if (duplicated > 0) reasons.push(`${duplicated} jobs duplicated`);
    if (ids.length === 0) reasons.push("no job was started");
    for (const p of memory.filter((m) => !m.flat)) reasons.push(`${p.name}: memory grew ${p.growthMb} MB${p.restarts > 0 ? `, started again ${p.restarts}×` : ""}`);

    const result: SoakResult = {
      date: new Date().toISOString(),
      node: process.version,
      machine: `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} at the end`,
      mode: full ? "full" : "short",
      users,
      durationSeconds,
      warmupSeconds,
      rounds: rounds.reduce((a, b) => a + b, 0),
      requests: {
        total: log.total(),
        byClass,
        byRoute: Object.fromEntries([...log.counts].sort(([a], [b]) => a.localeCompare(b))),
        networkErrors,
        latencyMs: { p50: pct(50), p95: pct(95), p99: pct(99), max: Math.round(latencies[latencies.length - 1] ?? 0) },
      },
      jobs: {
        submitted: ids.length,
        completed,
        failedWithReason,
        lost,
        duplicated,
        secondsP50: Math.round(durations[Math.floor(durations.length / 2)] ?? 0),
        secondsMax: Math.round(durations[durations.length - 1] ?? 0),
      },
      flowErrors: { count: shared.flowErrors.length, first: shared.flowErrors.slice(0, 20) },
      memory: { maxGrowthMb, processes: memory },
      verdict: reasons.length === 0 ? "PASS" : "FAIL",
      reasons,
    };

    console.log(formatCounts("soak", { ...result.jobs, requests: result.requests.total, "5xx": byClass["5xx"] ?? 0, brokenFlows: shared.flowErrors.length }));
    console.table(Object.fromEntries(memory.map((m) => [m.name, { "warm MB": m.warmMb, "end MB": m.endMb, "peak MB": m.peakMb, "growth MB": m.growthMb, "MB/min": m.slopeMbPerMin, restarts: m.restarts, flat: m.flat }])));
    if (shared.flowErrors.length > 0) console.log(`broken flows (first 20):\n  ${shared.flowErrors.slice(0, 20).join("\n  ")}`);
    say(`${result.verdict}${reasons.length > 0 ? `: ${reasons.join("; ")}` : ""}`);
    if (args.json) await writeJson(path.resolve(args.json), result);
    if (write) {
      await writeJson(path.join(repoRoot, "bench", "results", "soak.json"), result);
      await writeBenchmarksSection(repoRoot, result);
      say("wrote bench/results/soak.json and the soak section of docs/benchmarks.md");
    }
    if (result.verdict === "FAIL") {
      const tail = stack.output().slice(-6000);
      if (tail.trim()) console.log(`--- launcher output (warnings and errors, tail) ---\n${tail}`);
    }
    return result.verdict === "PASS" ? 0 : 1;
  } finally {
    sampler?.stop();
    mailbox.stop();
    for (const agent of agents) agent.close();
    await stack.interrupt();
    await rm(dataDir, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
