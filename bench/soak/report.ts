import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { JobCounts } from "../../tests/reliability/lib/report.js";
import type { MemoryVerdict } from "./memory.js";

export interface SoakResult {
  date: string;
  node: string;
  machine: string;
  mode: "full" | "short";
  users: number;
  durationSeconds: number;
  warmupSeconds: number;
  rounds: number;
  requests: {
    total: number;
    byClass: Record<string, number>;
    byRoute: Record<string, number>;
    networkErrors: Record<string, number>;
    latencyMs: { p50: number; p95: number; p99: number; max: number };
  };
  jobs: JobCounts & { secondsP50: number; secondsMax: number };
  flowErrors: { count: number; first: string[] };
  memory: { maxGrowthMb: number; processes: MemoryVerdict[] };
  verdict: "PASS" | "FAIL";
  reasons: string[];
}

const START = "<!-- soak:start -->";
const END = "<!-- soak:end -->";

/** The section of docs/benchmarks.md between the soak markers (kept verbatim by whoever regenerates the rest). */
export function markdown(result: SoakResult): string {
  const classes = ["2xx", "3xx", "4xx", "5xx"].map((c) => `${c} ${result.requests.byClass[c] ?? 0}`).join(", ");
  const networkErrors = Object.values(result.requests.networkErrors).reduce((a, b) => a + b, 0);
  const rows = result.memory.processes
    .map((p) => `| ${p.name} | ${p.warmMb} MB | ${p.endMb} MB | ${p.peakMb} MB | ${p.growthMb >= 0 ? "+" : ""}${p.growthMb} MB | ${p.slopeMbPerMin} MB/min | ${p.restarts} | ${p.flat ? "flat" : "**grew**"} |`)
    .join("\n");
  const routes = Object.entries(result.requests.byRoute)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([route, count]) => `| \`${route}\` | ${count} |`)
    .join("\n");
  const j = result.jobs;
  return `${START}
## Load soak: ${result.users} people for ${Math.round(result.durationSeconds / 60)} minutes

\`npm run soak\` (\`bench/soak/soak.ts\`; \`-- --users N --duration SECONDS\` to change the load;
CI runs a shortened form, 10 people for 45 s, in \`tests/reliability/soak.test.ts\`). It starts the
whole product with the launcher (\`npm start\`, on ports and a data directory of its own;
\`FREE_TRIAL_MINUTES=1000000\` so the trial limit is not what is measured), then simulates
people, each from their own loopback address (127.0.0.x: the auth service's per-address
sign-in limits stay on and see separate people), each with their own session: sign in by
magic link (read from the mail catcher), then round after round upload a 2-3 s spoken mp3
through the signed URL, wait for it to be processed, transcribe it with \`whisper-tiny.en\`
(polling the transcript and the list with ETags, as the dashboard does), export it (txt,
srt, docx, pdf in turn) and download the export, rename it, read the trial limits, delete
it; every fourth round signs out and in again. Every request is counted by route and
status; every process's resident memory is sampled every 2 s from /proc (PostgreSQL as
the proportional set size of all its processes). It fails on any 5xx, any network error,
any step answered with a status it should not get, any job lost or duplicated, or any
process whose memory grew by more than ${result.memory.maxGrowthMb} MB between the end of the ${result.warmupSeconds}-s
warm-up and the end of the load (median of the first five samples against the last five
of that window; the quieter minutes while the last rounds finish are not judged) or that
was started again. Results: \`bench/results/soak.json\`.

Recorded ${result.date.slice(0, 10)}, Node ${result.node.replace(/^v/, "")}, ${result.machine}: **${result.verdict}**${result.reasons.length > 0 ? ` (${result.reasons.join("; ")})` : ""}.

Requests: ${result.requests.total} (${classes}; ${networkErrors} network errors); latency p50
${result.requests.latencyMs.p50} ms, p95 ${result.requests.latencyMs.p95} ms, p99 ${result.requests.latencyMs.p99} ms. Rounds completed: ${result.rounds}; broken flows: ${result.flowErrors.count}.

Jobs: submitted ${j.submitted}, completed ${j.completed}, failed with a reason ${j.failedWithReason},
**lost ${j.lost}, duplicated ${j.duplicated}**; from start to completed: median ${j.secondsP50} s, longest ${j.secondsMax} s
(one worker process runs the jobs one at a time, so with ${result.users} people this is mostly
waiting in the queue).

| process | after warm-up | end | peak | growth | slope | restarts | |
|---|---|---|---|---|---|---|---|
${rows}

"After warm-up" and "end" are medians of five samples at either end of the judged window.
A negative growth is a heap handing back what start-up and the first minute took; the
slope is reported, not judged (over minutes a heap's sawtooth alone can tilt it).

<details><summary>Requests by route and status</summary>

| route and status | count |
|---|---|
${routes}

</details>
${END}`;
}

/** Replaces the soak section of docs/benchmarks.md, or appends it when the file has none. */
export async function writeBenchmarksSection(repoRoot: string, result: SoakResult): Promise<void> {
  const file = path.join(repoRoot, "docs", "benchmarks.md");
  const current = await readFile(file, "utf8");
  const section = markdown(result);
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const next =
    start >= 0 && end > start ? `${current.slice(0, start)}${section}${current.slice(end + END.length)}` : `${current.trimEnd()}\n\n${section}\n`;
  await writeFile(file, next);
}

export async function writeJson(file: string, result: SoakResult): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
}
