/*
 * Benchmark 5, upload: a 100 MB file PUT through the BFF's /api/v1/storage proxy into the
 * media service's local store, then processed (probe, transcode to 16 kHz mono, cut). The
 * BFF and media run as their own processes, exactly as `npm start` runs them; their
 * resident memory is sampled from /proc every 20 ms. The target: neither grows by 64 MB
 * or more, because neither holds the file in memory. Several uploads of the same file;
 * each one's growth is measured from the warm baseline just before it; the worst growth
 * and the median times are reported.
 *
 *   npm run bench:upload                      (100 MB, 3 uploads; bench/results/upload.json)
 *   npm run bench:upload -- --smoke           (5 MB, 1 upload)
 *   UPLOAD_BENCH_MB=20 npm run bench:upload
 *
 * Needs Linux (/proc). The upload URL is obtained from
 * media's CreateUpload directly, as the BFF does after its session check: the session
 * is not what is measured, the bytes' path is.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ffmpegPath } from "@transcribe/media/testing/tools";
import { createServiceClient, startEmbeddedPostgres } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { FileStatus, MediaService } from "@transcribe/proto/media/v1/media";
import { rss } from "../lib/proc.js";
import { putFile } from "../lib/product.js";
import { isSmoke, repoRoot, startRecording } from "../lib/results.js";
import { median, printTable, round } from "../lib/stats.js";

const run = promisify(execFile);
const smoke = isSmoke();
const targetMb = Number(process.env.UPLOAD_BENCH_MB ?? (smoke ? 5 : 100));
const uploads = smoke ? 1 : 3;
const LIMIT_MB = 64;

interface Sampler {
  pid: number;
  baseline: number;
  peakUpload: number;
  peakProcessing: number;
  phase: "idle" | "upload" | "processing";
}

interface UploadRun {
  uploadMs: number;
  processingMs: number;
  durationMeasured: number;
  bff: { baseline: number; peakUpload: number };
  media: { baseline: number; peakUpload: number; peakProcessing: number };
}

async function main() {
  const recording = startRecording("upload", smoke);
  const work = await mkdtemp(path.join(os.tmpdir(), "upload-bench-"));
  const children: ChildProcess[] = [];
  let postgres: Awaited<ReturnType<typeof startEmbeddedPostgres>> | undefined;
  try {
    // 16-bit stereo 44.1 kHz WAV (176,400 bytes/s), as long as fits in the target size.
    const file = path.join(work, "upload.wav");
    const seconds = Math.floor((targetMb * 1024 * 1024 - 44) / 176_400);
    await run(ffmpegPath, ["-v", "error", "-y", "-f", "lavfi", "-i", `sine=frequency=440:sample_rate=44100:duration=${seconds}`, "-ac", "2", file]);
    const size = (await stat(file)).size;

    postgres = await startEmbeddedPostgres({ dataDir: path.join(work, "pg"), port: await freePort(), persistent: false });
    for (const db of ["media", "events"]) await postgres.ensureDatabase(db);
    const [mediaPort, bffPort] = [await freePort(), await freePort()];
    // Not "production": that requires service keys (decision 0023), and this benchmark's own
    // client calls media directly as no particular service; the upload path is the same.
    const common = { ...process.env, HOST: "127.0.0.1", LOG_LEVEL: "warn", NODE_ENV: "test" };
    const media = start(
      "media",
      "services/media/src/main.ts",
      {
        ...common,
        PORT: String(mediaPort),
        DATA_DIR: path.join(work, "data"),
        DATABASE_URL: postgres.urlFor("media"),
        EVENT_BUS_DATABASE_URL: postgres.urlFor("events"),
        STORAGE_PUBLIC_URL: `http://127.0.0.1:${bffPort}/api/v1/storage`,
      },
      children,
    );
    const bff = start(
      "bff",
      "services/bff/src/main.ts",
      { ...common, PORT: String(bffPort), MEDIA_URL: `http://127.0.0.1:${mediaPort}`, WEB_DIST_DIR: path.join(work, "no-web") },
      children,
    );
    await ready(`http://127.0.0.1:${mediaPort}/readyz`);
    await ready(`http://127.0.0.1:${bffPort}/api/v1/openapi.json`);
    const client = createServiceClient(MediaService, `http://127.0.0.1:${mediaPort}`, { timeoutMs: 60_000 });

    // Warm-up: one small upload loads every code path, so the baseline is a warm process.
    const small = path.join(work, "small.wav");
    await run(ffmpegPath, ["-v", "error", "-y", "-f", "lavfi", "-i", "sine=duration=2", small]);
    await uploadAndWait(client, small, (await stat(small)).size);

    const runs: UploadRun[] = [];
    for (let i = 0; i < uploads; i++) {
      await new Promise((r) => setTimeout(r, 1_000));
      runs.push(await measureUpload(client, file, size, seconds, media.pid!, bff.pid!));
      const last = runs.at(-1)!;
      console.log(
        `  upload ${i + 1}: ${round(last.uploadMs)} ms, processing ${round(last.processingMs)} ms; growth BFF ${round((last.bff.peakUpload - last.bff.baseline) / 2 ** 20, 1)} MB, ` +
          `media ${round((last.media.peakUpload - last.media.baseline) / 2 ** 20, 1)} / ${round((last.media.peakProcessing - last.media.baseline) / 2 ** 20, 1)} MB`,
      );
    }

    const mb = (bytes: number) => round(bytes / 2 ** 20, 1);
    const med = (pick: (r: UploadRun) => number) => median(runs.map(pick));
    // Memory is judged by the worst upload (usually the first: later ones reuse the
    // buffers it grew), times by the median.
    const worstOf = (pick: (r: UploadRun) => number) => Math.max(...runs.map(pick));
    const result = {
      file: { bytes: size, seconds, type: "audio/wav" },
      uploads,
      upload: { ms: Math.round(med((r) => r.uploadMs)), mb_per_s: mb(median(runs.map((r) => size / (r.uploadMs / 1000)))) },
      processing: { ms: Math.round(med((r) => r.processingMs)), duration_measured: runs[0]!.durationMeasured },
      bff: {
        baseline_mb: mb(runs[0]!.bff.baseline),
        peak_upload_mb: mb(worstOf((r) => r.bff.peakUpload)),
        growth_upload_mb: mb(worstOf((r) => r.bff.peakUpload - r.bff.baseline)),
      },
      media: {
        baseline_mb: mb(runs[0]!.media.baseline),
        peak_upload_mb: mb(worstOf((r) => r.media.peakUpload)),
        growth_upload_mb: mb(worstOf((r) => r.media.peakUpload - r.media.baseline)),
        peak_processing_mb: mb(worstOf((r) => r.media.peakProcessing)),
        growth_processing_mb: mb(worstOf((r) => r.media.peakProcessing - r.media.baseline)),
      },
      per_upload: runs.map((r) => ({
        upload_ms: Math.round(r.uploadMs),
        processing_ms: Math.round(r.processingMs),
        bff_growth_mb: mb(r.bff.peakUpload - r.bff.baseline),
        media_growth_upload_mb: mb(r.media.peakUpload - r.media.baseline),
        media_growth_processing_mb: mb(r.media.peakProcessing - r.media.baseline),
      })),
      limit_mb: LIMIT_MB,
    };
    const worst = Math.max(result.bff.growth_upload_mb, result.media.growth_upload_mb, result.media.growth_processing_mb);
    const targetMet = worst < LIMIT_MB;
    console.log(`upload benchmark: ${mb(size)} MB WAV through the BFF to local storage, then processed (${uploads} uploads: worst memory growth, median times)`);
    printTable([
      { process: "BFF (upload)", "baseline MB": result.bff.baseline_mb, "peak MB": result.bff.peak_upload_mb, "growth MB": result.bff.growth_upload_mb },
      { process: "media (upload)", "baseline MB": result.media.baseline_mb, "peak MB": result.media.peak_upload_mb, "growth MB": result.media.growth_upload_mb },
      { process: "media (processing)", "baseline MB": result.media.baseline_mb, "peak MB": result.media.peak_processing_mb, "growth MB": result.media.growth_processing_mb },
    ]);
    console.log(`upload ${result.upload.ms} ms (${result.upload.mb_per_s} MB/s), processing ${result.processing.ms} ms; worst growth ${worst} MB (< ${LIMIT_MB} MB): ${targetMet ? "met" : "NOT MET"}`);
    await recording.finish({ ...result, worst_growth_mb: worst, targetMet });
  } finally {
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once("exit", r)))));
    await postgres?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

/** One upload of the file and its processing, with both processes' memory sampled from a warm baseline. */
async function measureUpload(
  client: ReturnType<typeof createServiceClient<typeof MediaService>>,
  file: string,
  size: number,
  seconds: number,
  mediaPid: number,
  bffPid: number,
): Promise<UploadRun> {
  const samplers = [mediaPid, bffPid].map((pid) => ({ pid, baseline: rss(pid), peakUpload: 0, peakProcessing: 0, phase: "idle" }) as Sampler);
  const timer = setInterval(() => {
    for (const s of samplers) {
      const now = rss(s.pid);
      if (s.phase === "upload") s.peakUpload = Math.max(s.peakUpload, now);
      if (s.phase === "processing") s.peakProcessing = Math.max(s.peakProcessing, now);
    }
  }, 20);
  try {
    for (const s of samplers) s.phase = "upload";
    const created = await client.createUpload({ userId: "bench", fileName: "upload.wav", fileSize: BigInt(size), contentType: "audio/wav", duration: seconds });
    const started = performance.now();
    const status = await putFile(created.uploadUrl, file, size, "audio/wav");
    const uploadMs = performance.now() - started;
    if (status !== 200) throw new Error(`the PUT answered ${status}`);
    for (const s of samplers) s.phase = "processing";
    const processingStarted = performance.now();
    const processed = await waitReady(client, created.fileId);
    const processingMs = performance.now() - processingStarted;
    const [m, b] = samplers as [Sampler, Sampler];
    return {
      uploadMs,
      processingMs,
      durationMeasured: processed.duration,
      bff: { baseline: b.baseline, peakUpload: b.peakUpload },
      media: { baseline: m.baseline, peakUpload: m.peakUpload, peakProcessing: m.peakProcessing },
    };
  } finally {
    clearInterval(timer);
  }
}

function start(name: string, entry: string, env: NodeJS.ProcessEnv, children: ChildProcess[]): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", path.join(repoRoot, entry)], { cwd: repoRoot, env, stdio: ["ignore", "inherit", "inherit"] });
  child.once("exit", (code) => {
    if (!child.killed && code !== null && code !== 0) console.error(`${name} exited with ${code}`);
  });
  children.push(child);
  return child;
}

async function ready(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} not ready after 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function uploadAndWait(client: ReturnType<typeof createServiceClient<typeof MediaService>>, file: string, size: number) {
  const created = await client.createUpload({ userId: "bench", fileName: path.basename(file), fileSize: BigInt(size), contentType: "audio/wav", duration: 1 });
  const status = await putFile(created.uploadUrl, file, size, "audio/wav");
  if (status !== 200) throw new Error(`warm-up PUT answered ${status}`);
  await waitReady(client, created.fileId);
}

async function waitReady(client: ReturnType<typeof createServiceClient<typeof MediaService>>, fileId: string) {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const { file } = await client.getFile({ userId: "bench", fileId });
    if (file?.status === FileStatus.READY) return file;
    if (file?.status === FileStatus.FAILED) throw new Error(`processing failed: ${file.error}`);
    if (Date.now() > deadline) throw new Error("processing did not finish in 10 minutes");
    await new Promise((r) => setTimeout(r, 100));
  }
}

await main();
