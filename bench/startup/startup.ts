/**
 * Benchmark 7, start-up: `npm start` (the embedded launcher: PostgreSQL, every service,
 * the mail catcher) until `GET /api/v1/health` answers 200, cold — an empty data
 * directory, so PostgreSQL's cluster is created and every migration runs — and warm —
 * the same data directory started again. The web app is already built (the launcher's
 * build check is skipped, as it would find nothing to do). Also reported: the time from
 * Ctrl-C (SIGINT to the launcher) to `npm start` exiting, and the stack's resident
 * memory once healthy (the sum over its processes; shared pages count once per process).
 *
 *   npm run bench:startup               (2 cold/warm pairs)
 *   npm run bench:startup -- --smoke    (1 pair)
 */
import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { getHealth } from "../../deploy/embedded/test/stack.js";
import { processTree, rss } from "../lib/proc.js";
import { launcherEnv, newDataDir } from "../lib/product.js";
import { isSmoke, repoRoot, startRecording } from "../lib/results.js";
import { median, printTable, round } from "../lib/stats.js";

const { values } = parseArgs({ options: { smoke: { type: "boolean", default: false }, runs: { type: "string" } } });
const smoke = isSmoke();
const runs = Number(values.runs ?? (smoke ? 1 : 2));
const HEALTH_TIMEOUT_MS = 180_000;

interface Start {
  healthySeconds: number;
  stopSeconds: number;
  rssMb: number;
  processes: number;
}

/** One `npm start` on the data directory: seconds to health 200, then Ctrl-C and seconds until it has exited. */
async function npmStart(dataDir: string): Promise<Start> {
  const env = await launcherEnv(dataDir);
  const started = performance.now();
  const npm = spawn("npm", ["start", "--silent"], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  npm.stdout.on("data", (chunk) => (output = (output + chunk).slice(-4000)));
  npm.stderr.on("data", (chunk) => (output = (output + chunk).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => npm.once("exit", resolve));
  const baseUrl = `http://127.0.0.1:${env.BFF_PORT}`;
  let healthySeconds: number | undefined;
  while (healthySeconds === undefined) {
    if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}:\n${output}`);
    if (performance.now() - started > HEALTH_TIMEOUT_MS) throw new Error(`not healthy after ${HEALTH_TIMEOUT_MS / 1000} s:\n${output}`);
    const health = await getHealth(baseUrl);
    if (health?.status === 200) healthySeconds = (performance.now() - started) / 1000;
    else await new Promise((r) => setTimeout(r, 100));
  }
  const tree = processTree(npm.pid!);
  const rssMb = tree.reduce((sum, p) => sum + rss(p.pid), 0) / 2 ** 20;
  // Ctrl-C reaches the launcher, which stops the services and PostgreSQL. The launcher is
  // the deepest process running main.ts (above it are npm's shell and tsx's wrapper).
  const launcher = tree.filter((p) => readCmdline(p.pid).includes("deploy/embedded/src/main.ts")).at(-1);
  if (!launcher) throw new Error("the launcher process was not found under npm start");
  const stopping = performance.now();
  process.kill(launcher.pid, "SIGINT");
  const code = await exited;
  const stopSeconds = (performance.now() - stopping) / 1000;
  if (code !== 0) console.error(`npm start exited with ${code} after Ctrl-C`);
  return { healthySeconds, stopSeconds, rssMb, processes: tree.length };
}

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

async function main(): Promise<void> {
  const recording = startRecording("startup", smoke);
  console.log(`Start-up: npm start until GET /api/v1/health is 200, cold (empty data directory) then warm (same data); ${runs} pair(s)`);
  const samples: Array<{ run: number; kind: "cold" | "warm" } & Start> = [];
  for (let run = 0; run < runs; run++) {
    const dataDir = await newDataDir();
    try {
      for (const kind of ["cold", "warm"] as const) {
        const start = await npmStart(dataDir);
        samples.push({ run, kind, ...start });
        console.log(`  pair ${run + 1} ${kind}: healthy after ${round(start.healthySeconds, 1)} s, stopped ${round(start.stopSeconds, 1)} s after Ctrl-C, ${start.processes} processes, ${Math.round(start.rssMb)} MB resident`);
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }
  const rows = (["cold", "warm"] as const).map((kind) => {
    const mine = samples.filter((s) => s.kind === kind);
    return {
      kind,
      starts: mine.length,
      healthySeconds: round(median(mine.map((s) => s.healthySeconds)), 1),
      healthySecondsRuns: mine.map((s) => round(s.healthySeconds, 1)),
      stopSeconds: round(median(mine.map((s) => s.stopSeconds)), 1),
      rssMb: Math.round(median(mine.map((s) => s.rssMb))),
      processes: mine[0]!.processes,
    };
  });
  printTable(rows.map((r) => ({ start: r.kind, starts: r.starts, "to healthy s (median)": r.healthySeconds, "stop s": r.stopSeconds, processes: r.processes, "resident MB": r.rssMb })));
  await recording.finish({ runs, rows, samples });
}

await main();
