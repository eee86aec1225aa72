/**
 * Benchmark 1, pipeline overhead: for the same 16 kHz WAV, model, beam, compute type and
 * thread count, the wall time from the upload request to `completed` through the whole
 * product (`npm start`'s processes, the public API, signed in by magic link) divided by
 * the time faster-whisper takes for the same file when called directly (bench/lib/
 * bare_whisper.py). Target: ratio ≤ 1.10 for the 2- and 10-minute files.
 *
 *   npm run bench:overhead                 (10 s, 2 min, 10 min; 3 pairs each; tiny.en)
 *   npm run bench:overhead -- --smoke      (3 s, 1 pair)
 *   tsx bench/pipeline/overhead.ts --runs 5 --model base --seconds 10,120
 *
 * Like with like: the worker keeps its engine and model loaded between jobs, so both
 * sides are warmed first (one job through the product, one call of the bare engine) and
 * neither measured time includes loading the model; the bare engine's load time is
 * reported beside. Pairs alternate which side runs first, so a change of load on the
 * shared machine hits both sides alike; the ratio is taken pair by pair, then the median.
 */
import { parseArgs } from "node:util";
import { BareEngine } from "../lib/engine.js";
import { treeCpu } from "../lib/proc.js";
import pg from "pg";
import { signIn, startProduct, type ApiClient, type Product } from "../lib/product.js";
import { isSmoke, startRecording } from "../lib/results.js";
import { speech, type Speech } from "../lib/speech.js";
import { median, printTable, round } from "../lib/stats.js";
import { wordErrorRate } from "../lib/wer.js";

const { values } = parseArgs({
  options: {
    smoke: { type: "boolean", default: false },
    runs: { type: "string" },
    seconds: { type: "string" },
    model: { type: "string", default: "tiny.en" },
    threads: { type: "string", default: "2" },
  },
});
const smoke = isSmoke();
const runs = Number(values.runs ?? (smoke ? 1 : 3));
const lengths = (values.seconds ?? (smoke ? "3" : "10,120,600")).split(",").map(Number);
const engineModel = values.model!;
const threads = Number(values.threads);
const catalogId = `whisper-${engineModel}`;
const TARGET = 1.1;
/** The client's poll; completion is read from the server's commit time, so it does not depend on this. */
const POLL_MS = 1000;

interface ProductRun {
  /** Upload request to the commit of the result (the transcription's updated_at when it turned completed). */
  totalSeconds: number;
  /** Upload request to the poll that saw `completed`. */
  seenSeconds: number;
  /** CPU seconds of every process of the product (services, PostgreSQL, engine, ffmpeg) over the job. */
  cpuSeconds: number;
  cpuByProcess: Array<{ name: string; seconds: number }>;
  /** POST /upload and the PUT of the bytes. */
  uploadSeconds: number;
  /** PUT answered → media marked the file ready (copy, sniff, probe, transcode, cut). */
  mediaSeconds: number;
  /** File ready (and job created) → the worker started the job (event, queue poll, lease). */
  pickupSeconds: number;
  /** Job started → result committed (download, engine, seam merge, storing the result). */
  workerSeconds: number;
  text: string;
}

/** The product's own timestamps of one job, read from its databases (for the breakdown only). */
async function timeline(product: Product, fileId: string, transcriptionId: string) {
  const query = async <T>(database: string, text: string, params: unknown[]) => {
    const client = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${product.pgPort}/${database}` });
    await client.connect();
    try {
      return (await client.query(text, params)).rows[0] as T;
    } finally {
      await client.end();
    }
  };
  const file = await query<{ ready: Date }>("media", "select updated_at as ready from files where id = $1", [fileId]);
  const job = await query<{ created: Date; started: Date; finished: Date }>(
    "transcription",
    "select created_at as created, started_at as started, finished_at as finished from transcription_jobs where transcription_id = $1 order by created_at desc limit 1",
    [transcriptionId],
  );
  return { ready: file.ready.getTime(), created: job.created.getTime(), started: job.started.getTime(), finished: job.finished.getTime() };
}

async function throughProduct(product: Product, api: ApiClient, audio: Speech): Promise<ProductRun> {
  const cpu = treeCpu(product.stack.child.pid!);
  const startedAt = Date.now();
  const started = performance.now();
  const fileId = await api.upload(audio.file, "audio/wav", audio.seconds);
  const uploadedAt = Date.now();
  const { transcription_id: id } = await api.post<{ transcription_id: string }>("/api/v1/transcriptions", {
    file_id: fileId,
    settings: { model: catalogId, language: "en" },
  });
  for (;;) {
    const detail = await api.get<{ status: string; error?: string; updated_at: string; result: { text: string } | null }>(`/api/v1/transcriptions/${id}`);
    const now = performance.now();
    if (detail.status === "completed") {
      const cpuByProcess = cpu.byProcess();
      const cpuSeconds = cpuByProcess.reduce((sum, p) => sum + p.seconds, 0);
      const t = await timeline(product, fileId, id);
      return {
        totalSeconds: (Date.parse(detail.updated_at) - startedAt) / 1000,
        seenSeconds: (now - started) / 1000,
        cpuSeconds,
        cpuByProcess,
        uploadSeconds: (uploadedAt - startedAt) / 1000,
        mediaSeconds: (t.ready - uploadedAt) / 1000,
        pickupSeconds: (t.started - Math.max(t.ready, t.created)) / 1000,
        workerSeconds: (t.finished - t.started) / 1000,
        text: detail.result?.text ?? "",
      };
    }
    if (detail.status === "failed") throw new Error(`the transcription failed: ${detail.error}`);
    if (now - started > 30 * 60_000) throw new Error("no result after 30 minutes");
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function main(): Promise<void> {
  const recording = startRecording("overhead", smoke);
  const audios = lengths.map((s) => speech(s));
  const warmAudio = speech(smoke ? 3 : 10);
  console.log(`Pipeline overhead: ${engineModel}, int8, beam 5, ${threads} threads; ${runs} pair(s) per file: ${audios.map((a) => `${round(a.seconds)} s`).join(", ")}`);

  const product = await startProduct({ env: { WHISPER_THREADS: String(threads), WORKER_CONCURRENCY: "1", WHISPER_DOWNLOAD: "false" } });
  let bare: BareEngine | undefined;
  try {
    const api = await signIn(product);
    bare = await BareEngine.start({ model: engineModel, threads });
    // Warm both: the worker's engine process starts and loads the model on its first job.
    const warmProduct = await throughProduct(product, api, warmAudio);
    await bare.transcribe(warmAudio.file);
    console.log(`warm-up: product ${round(warmProduct.totalSeconds, 2)} s (first job: engine start and model load included)`);

    // What the product costs with nothing to do: every service's timers and polls, PostgreSQL.
    const idleWindow = smoke ? 3 : 10;
    await new Promise((r) => setTimeout(r, 2_000));
    const idleCpu = treeCpu(product.stack.child.pid!);
    await new Promise((r) => setTimeout(r, idleWindow * 1000));
    const idleByProcess = idleCpu.byProcess();
    const idle = {
      windowSeconds: idleWindow,
      cores: round(idleByProcess.reduce((sum, p) => sum + p.seconds, 0) / idleWindow, 3),
      byProcess: Object.fromEntries(idleByProcess.filter((p) => p.seconds > 0).map((p) => [p.name, round(p.seconds / idleWindow, 4)])),
    };
    console.log(`idle: ${idle.cores} cores (${Object.entries(idle.byProcess).slice(0, 5).map(([name, cores]) => `${name} ${cores}`).join(", ")})`);

    const pairs: Array<{ seconds: number; run: number; product: ProductRun; bareSeconds: number; bareCpuSeconds: number; bareText: string }> = [];
    for (let run = 0; run < runs; run++) {
      for (const audio of audios) {
        const productFirst = run % 2 === 0;
        let productRun: ProductRun | undefined;
        let bareRun: Awaited<ReturnType<BareEngine["transcribe"]>> | undefined;
        for (const side of productFirst ? ["product", "bare"] : ["bare", "product"]) {
          if (side === "product") productRun = await throughProduct(product, api, audio);
          else bareRun = await bare.transcribe(audio.file);
        }
        pairs.push({ seconds: audio.seconds, run, product: productRun!, bareSeconds: bareRun!.seconds, bareCpuSeconds: bareRun!.cpu_seconds, bareText: bareRun!.text });
        console.log(
          `  ${round(audio.seconds)} s, pair ${run + 1}: product ${round(productRun!.totalSeconds, 2)} s ` +
            `(upload ${round(productRun!.uploadSeconds, 2)}, media ${round(productRun!.mediaSeconds, 2)}, pickup ${round(productRun!.pickupSeconds, 2)}, worker ${round(productRun!.workerSeconds, 2)}), ` +
            `bare ${round(bareRun!.seconds, 2)} s → ${round(productRun!.totalSeconds / bareRun!.seconds, 3)}; ` +
            `CPU ${round(productRun!.cpuSeconds, 2)} / ${round(bareRun!.cpu_seconds, 2)} s ` +
            `(${productRun!.cpuByProcess.slice(0, 5).map((p) => `${p.name} ${round(p.seconds, 2)}`).join(", ")})`,
        );
      }
    }

    const rows = audios.map((audio) => {
      const mine = pairs.filter((p) => p.seconds === audio.seconds);
      const ratio = median(mine.map((p) => p.product.totalSeconds / p.bareSeconds));
      const hasTarget = audio.seconds >= 100;
      const last = mine.at(-1)!;
      return {
        audioSeconds: round(audio.seconds),
        pairs: mine.length,
        productSeconds: round(median(mine.map((p) => p.product.totalSeconds)), 2),
        uploadSeconds: round(median(mine.map((p) => p.product.uploadSeconds)), 2),
        mediaSeconds: round(median(mine.map((p) => p.product.mediaSeconds)), 2),
        pickupSeconds: round(median(mine.map((p) => p.product.pickupSeconds)), 2),
        workerSeconds: round(median(mine.map((p) => p.product.workerSeconds)), 2),
        bareSeconds: round(median(mine.map((p) => p.bareSeconds)), 2),
        bareCpuSeconds: round(median(mine.map((p) => p.bareCpuSeconds)), 2),
        productCpuSeconds: round(median(mine.map((p) => p.product.cpuSeconds)), 2),
        cpuRatio: round(median(mine.map((p) => p.product.cpuSeconds / p.bareCpuSeconds)), 3),
        seenSeconds: round(median(mine.map((p) => p.product.seenSeconds)), 2),
        /** Median CPU seconds of each of the product's processes over the job. */
        cpuByProcess: Object.fromEntries(
          [...new Set(mine.flatMap((p) => p.product.cpuByProcess.map((c) => c.name)))].map((name) => [
            name,
            round(median(mine.map((p) => p.product.cpuByProcess.find((c) => c.name === name)?.seconds ?? 0)), 2),
          ]),
        ),
        ratio: round(ratio, 3),
        ratios: mine.map((p) => round(p.product.totalSeconds / p.bareSeconds, 3)),
        productWer: round(wordErrorRate(audio.script, last.product.text).wer, 3),
        bareWer: round(wordErrorRate(audio.script, last.bareText).wer, 3),
        target: hasTarget ? TARGET : null,
        targetMet: hasTarget ? ratio <= TARGET : null,
      };
    });
    printTable(
      rows.map((r) => ({
        audio: `${r.audioSeconds} s`,
        pairs: r.pairs,
        "product s": r.productSeconds,
        "upload s": r.uploadSeconds,
        "media s": r.mediaSeconds,
        "pickup s": r.pickupSeconds,
        "worker s": r.workerSeconds,
        "bare s": r.bareSeconds,
        "ratio (median)": r.ratio,
        "CPU ratio": r.cpuRatio,
        "WER product": r.productWer,
        "WER bare": r.bareWer,
        "≤ 1.10": r.targetMet === null ? "no target" : r.targetMet ? "met" : "NOT MET",
      })),
    );
    await recording.finish({
      model: engineModel,
      computeType: "int8",
      beamSize: 5,
      threads,
      pollMs: POLL_MS,
      bareLoadSeconds: round(bare.loadSeconds, 2),
      warmupProductSeconds: round(warmProduct.totalSeconds, 2),
      idle,
      rows,
    });
  } finally {
    await bare?.close();
    await product.stop();
  }
}

await main();
