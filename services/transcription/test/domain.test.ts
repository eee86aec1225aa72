import { AppError } from "@transcribe/platform";
import { describe, expect, it } from "vitest";
import { bridgesNeeded, findSeam, mergeChunks, normalizeWord, planChunks } from "../src/domain/chunks.js";
import { collapseRepeats, compressionRatio, guardSegments } from "../src/domain/guard.js";
import { allLanguageCodes, classicLanguageCodes, languageNames } from "../src/domain/languages.js";
import { engineModelFor, findModel, modelCatalog } from "../src/domain/models.js";
import { validateName, validateSettings } from "../src/domain/settings.js";
import { TimestampGranularity } from "@transcribe/proto/transcription/v1/transcription";
import { canRetry, canTransition, predecessorsOf, statuses } from "../src/domain/status.js";
import { settleTimeline } from "../src/domain/timeline.js";
import type { ChunkResult, Segment, Word } from "../src/domain/transcriber.js";
import { backoffMs, timeLimitSeconds } from "../src/worker/job-runner.js";
import { missingMessage, parseModelPaths, resolveModel } from "../src/engines/local/models.js";

describe("status state machine", () => {
  it("moves only forward, and a final state never moves (except to deleted)", () => {
    expect(canTransition("pending", "processing")).toBe(true);
    expect(canTransition("pending", "transcribing")).toBe(true);
    expect(canTransition("processing", "transcribing")).toBe(true);
    expect(canTransition("transcribing", "completed")).toBe(true);
    expect(canTransition("transcribing", "failed")).toBe(true);
    expect(canTransition("pending", "failed")).toBe(true);
    expect(canTransition("transcribing", "processing")).toBe(false);
    expect(canTransition("transcribing", "pending")).toBe(false);
    expect(canTransition("completed", "failed")).toBe(false);
    expect(canTransition("failed", "completed")).toBe(false);
    expect(canTransition("completed", "transcribing")).toBe(false);
    expect(canTransition("pending", "pending")).toBe(false);
  });

  it("reaches deleted from every state, and leaves deleted never", () => {
    for (const s of statuses) {
      expect(canTransition(s, "deleted")).toBe(s !== "deleted");
      expect(canTransition("deleted", s)).toBe(false);
    }
  });

  it("lists predecessors for guarded updates and allows a retry only after the end", () => {
    expect(predecessorsOf("transcribing").sort()).toEqual(["pending", "processing"]);
    expect(predecessorsOf("completed").sort()).toEqual(["pending", "processing", "transcribing"]);
    expect(canRetry("completed")).toBe(true);
    expect(canRetry("failed")).toBe(true);
    expect(canRetry("transcribing")).toBe(false);
    expect(canRetry("deleted")).toBe(false);
  });
});

describe("settings (docs/requirements.md: Validation)", () => {
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      return (error as AppError).message;
    }
    throw new Error("expected a refusal");
  };

  it("refuses with the spec's messages", () => {
    expect(refusal(() => validateSettings({ model: "whisper-base", language: "" }))).toBe("Please select a language");
    expect(refusal(() => validateSettings({ model: "whisper-base", language: "  " }))).toBe("Please select a language");
    expect(refusal(() => validateSettings({ model: "whisper-base", language: "en", translateToEn: true }))).toBe(
      "Cannot translate English to English",
    );
    expect(refusal(() => validateSettings({ model: "nope", language: "en" }))).toBe("Unknown model: nope");
    expect(refusal(() => validateSettings({ model: "whisper-base", language: "en", temperature: 1.5 }))).toBe(
      "Temperature must be between 0 and 1",
    );
    expect(refusal(() => validateSettings({ model: "whisper-base", language: "en", temperature: -0.1 }))).toBe(
      "Temperature must be between 0 and 1",
    );
    expect(refusal(() => validateSettings({ model: "whisper-tiny.en", language: "de" }))).toBe(
      "Model whisper-tiny.en does not support language de",
    );
    expect(refusal(() => validateSettings({ model: "whisper-tiny.en", language: "auto", translateToEn: true }))).toBe(
      "Model whisper-tiny.en cannot translate to English",
    );
    expect(refusal(() => validateSettings({ model: "whisper-base", language: "xx" }))).toBe("Unknown language: xx");
    expect(refusal(() => validateSettings({ model: "whisper-base", language: "en", timestampGranularities: [TimestampGranularity.WORD, TimestampGranularity.WORD] }))).toBe(
      "Timestamp granularities must be distinct",
    );
  });

  it("applies defaults", () => {
    const { settings } = validateSettings({ language: "de", translateToEn: true });
    expect(settings).toEqual({
      provider: "local",
      model: "whisper-base",
      responseFormat: "verbose_json",
      timestampGranularities: ["segment"],
      temperature: 0,
      language: "de",
      translateToEn: true,
    });
  });

  it("renames with the spec's rules", () => {
    expect(validateName("  Meeting notes  ")).toBe("Meeting notes");
    expect(() => validateName("   ")).toThrow("Name cannot be empty");
    expect(validateName("x".repeat(255))).toHaveLength(255);
    expect(() => validateName("x".repeat(256))).toThrow("Name is too long");
  });
});

describe("catalog and languages", () => {
  it("knows Whisper's 100 languages with names", () => {
    expect(allLanguageCodes).toHaveLength(100);
    expect(classicLanguageCodes).toHaveLength(99);
    for (const code of ["en", "zh", "de", "es", "ru", "fr", "ja", "pt", "ar", "hi", "haw", "yue"]) expect(languageNames.has(code)).toBe(true);
    expect(new Set(allLanguageCodes).size).toBe(100);
  });

  it("runs scribe-v1 on scribe_v2 and turbo translations on large-v3, and says so", () => {
    expect(engineModelFor(findModel("scribe-v1")!, false)).toEqual({
      engineModel: "scribe_v2",
      message: "ElevenLabs removed scribe_v1 on 2026-07-09; scribe-v1 runs on scribe_v2",
    });
    expect(engineModelFor(findModel("whisper-large-v3-turbo")!, true).engineModel).toBe("whisper-large-v3");
    expect(engineModelFor(findModel("whisper-large-v3-turbo")!, false)).toEqual({ engineModel: "whisper-large-v3-turbo" });
    expect(modelCatalog.map((m) => m.id)).toEqual(
      expect.arrayContaining(["whisper-large-v3-turbo", "whisper-large-v3", "scribe-v1", "whisper-base", "whisper-tiny.en"]),
    );
  });

  it("resolves model files in order: explicit path, models dir, data dir, download; else says what to put where", () => {
    const locations = { explicit: {}, modelsDir: "/nonexistent/models", dataModelsDir: "/nonexistent/data/models", allowDownload: false };
    const missing = resolveModel("base", locations);
    expect(missing.kind).toBe("missing");
    if (missing.kind === "missing") {
      expect(missing.message).toContain("/nonexistent/models/base");
      expect(missing.message).toContain("/nonexistent/data/models/base");
      expect(missing.message).toContain("model.bin");
      expect(missing.message).toContain("fetch-models.sh");
    }
    expect(resolveModel("base", { ...locations, allowDownload: true })).toEqual({
      kind: "download",
      repo: "Systran/faster-whisper-base",
      dir: "/nonexistent/data/models/base",
    });
    expect(resolveModel("base", { ...locations, explicit: { base: "/nonexistent/explicit" } }).kind).toBe("missing");
    expect(parseModelPaths("tiny.en=/a, base=/b")).toEqual({ "tiny.en": "/a", base: "/b" });
    expect(missingMessage("small", locations, "no network")).toContain("The download from the model hub failed: no network");
  });
});

// ---- chunks -----------------------------------------------------------------------------

/** Words of a script, one every 0.4 s starting at `from`. */
function timedWords(script: string, from = 0, step = 0.4): Word[] {
  return script.split(" ").map((word, i) => ({ word: ` ${word}`, start: from + i * step, end: from + i * step + 0.3 }));
}

/** What a chunk [start, end) would hear of the timed script, with jitter and a garbled edge word. */
function chunkOf(all: Word[], index: number, start: number, end: number, jitter = 0.05): ChunkResult {
  const inWindow = all.filter((w) => w.end > start && w.start < end);
  const heard = inWindow.map((w, i) => ({
    ...w,
    start: Math.max(0, w.start + (i % 2 ? jitter : -jitter)),
    end: w.end + (i % 2 ? jitter : -jitter),
  }));
  // A window that cuts a word in half mishears it.
  if (inWindow[0] && inWindow[0].start < start) heard[0] = { ...heard[0]!, word: " uh" };
  if (inWindow.at(-1) && inWindow.at(-1)!.end > end) heard[heard.length - 1] = { ...heard.at(-1)!, word: " hmm" };
  const segments: Segment[] = [];
  for (let i = 0; i < heard.length; i += 7) {
    const ws = heard.slice(i, i + 7);
    segments.push({ start: ws[0]!.start, end: ws[ws.length - 1]!.end, text: ws.map((w) => w.word).join(""), words: ws });
  }
  return { index, start, end, language: "en", segments };
}

const script =
  "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty " +
  "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango " +
  "uniform victor whiskey xray yankee zulu red orange yellow green blue indigo violet black white grey brown pink purple gold";

describe("chunk planning and seams", () => {
  it("plans overlapping windows covering the whole file", () => {
    expect(planChunks(100, 30, 5)).toEqual([
      { index: 0, start: 0, end: 30 },
      { index: 1, start: 25, end: 55 },
      { index: 2, start: 50, end: 80 },
      { index: 3, start: 75, end: 100 },
    ]);
    expect(planChunks(20, 30, 5)).toEqual([{ index: 0, start: 0, end: 20 }]);
    // A tail shorter than two overlaps is folded into the last window.
    expect(planChunks(62, 30, 5).at(-1)).toEqual({ index: 1, start: 25, end: 62 });
    expect(() => planChunks(100, 8, 5)).toThrow();
  });

  it("merges overlapping chunks without a duplicated or lost word, through jitter and garbled edges", () => {
    const all = timedWords(script);
    const duration = all.at(-1)!.end + 0.5;
    for (const [chunkSeconds, overlap] of [[7, 2], [10, 3], [6.1, 1.5], [12, 4]] as const) {
      const windows = planChunks(duration, chunkSeconds, overlap);
      const chunks = windows.map((w) => chunkOf(all, w.index, w.start, w.end));
      const merged = settleTimeline(mergeChunks(chunks), duration);
      const text = merged.flatMap((s) => s.words.map((w) => normalizeWord(w.word)));
      expect(text.join(" "), `chunks of ${chunkSeconds}s overlapping ${overlap}s`).toBe(script);
      for (let i = 1; i < merged.length; i++) expect(merged[i]!.start).toBeGreaterThanOrEqual(merged[i - 1]!.end);
    }
  });

  it("falls back to the middle of the overlap when the chunks disagree", () => {
    const left = timedWords("a b c d e f", 0).map((w, i) => ({ ...w, segment: 0, norm: `l${i}` }));
    const right = timedWords("p q r s t", 1.2).map((w, i) => ({ ...w, segment: 0, norm: `r${i}` }));
    const seam = findSeam(left, right, 1.2, 2.4);
    expect(seam.aligned).toBe(false);
    // Cut at 1.8 s: left keeps words whose midpoint is before it, right the rest.
    expect(seam.keepLeft).toBe(5);
    expect(seam.rightFrom).toBe(2);
  });

  it("keeps a sentence that really repeats across the seam", () => {
    const repeated = "stop stop stop now go go";
    const all = timedWords(repeated);
    const chunks = [chunkOf(all, 0, 0, 1.5, 0), chunkOf(all, 1, 1.0, 3.0, 0)];
    const merged = mergeChunks(chunks);
    expect(merged.flatMap((s) => s.words.map((w) => normalizeWord(w.word))).join(" ")).toBe(repeated);
  });

  it("takes the next chunk's words where the earlier one skipped some near its end", () => {
    const all = timedWords(script);
    const left = chunkOf(all, 0, 0, 12, 0);
    const right = chunkOf(all, 1, 10, 22, 0);
    // The left window lost 10.4–11.2 s (three words) near its edge; the right one heard them.
    const holed: ChunkResult = {
      ...left,
      segments: left.segments.map((s) => ({ ...s, words: s.words.filter((w) => w.start < 10.3 || w.start > 11.3) })),
    };
    const merged = mergeChunks([holed, right]).flatMap((s) => s.words.map((w) => normalizeWord(w.word)));
    expect(merged.join(" ")).toBe(all.filter((w) => w.start < 22).map((w) => normalizeWord(w.word)).join(" "));
  });

  it("asks for a bridge where the next window skipped the overlap, and a bridge fills the hole", () => {
    const all = timedWords(script);
    const left = chunkOf(all, 0, 0, 12, 0);
    const right = chunkOf(all, 1, 10, 22, 0);
    // Whisper started the right window's transcript 3 s in: the words of 10–13 s are gone.
    const skipped: ChunkResult = { ...right, segments: right.segments.map((s) => ({ ...s, words: s.words.filter((w) => w.start >= 13) })).filter((s) => s.words.length > 0) };
    expect(bridgesNeeded([left, right])).toEqual([]);
    const [bridge] = bridgesNeeded([left, skipped]);
    expect(bridge).toMatchObject({ index: -1, start: 6, end: 22 });
    const withoutBridge = mergeChunks([left, skipped]).flatMap((s) => s.words.map((w) => normalizeWord(w.word)));
    const expected = all.filter((w) => w.start < 22).map((w) => normalizeWord(w.word)).join(" ");
    expect(withoutBridge.join(" ")).not.toBe(expected);
    const bridged = mergeChunks([left, skipped, chunkOf(all, bridge!.index, bridge!.start, bridge!.end, 0)]);
    expect(bridged.flatMap((s) => s.words.map((w) => normalizeWord(w.word))).join(" ")).toBe(expected);
  });

  it("tidies: ordered, non-overlapping, inside the audio", () => {
    const segments: Segment[] = [
      { start: 2, end: 5, text: " b", words: [] },
      { start: 0, end: 2.5, text: " a", words: [] },
      { start: 4.5, end: 9, text: " c", words: [] },
      { start: 6, end: 7, text: "  ", words: [] },
    ];
    const tidy = settleTimeline(segments, 8);
    expect(tidy.map((s) => [s.text, s.start, s.end])).toEqual([
      ["a", 0, 2],
      ["b", 2, 4.5],
      ["c", 4.5, 8],
    ]);
  });
});

describe("repetition and hallucination guard", () => {
  const seg = (text: string, extra: Partial<Segment> = {}): Segment => ({
    start: 0,
    end: 1,
    text,
    words: text.split(" ").filter(Boolean).map((w, i) => ({ word: ` ${w}`, start: i * 0.2, end: i * 0.2 + 0.1 })),
    ...extra,
  });

  it("cuts a looping phrase back and keeps ordinary repetition", () => {
    const loop = "I am here. I am here. I am here. I am here. I am here. I am here.".split(" ");
    const kept = collapseRepeats(loop);
    expect(kept.map((i) => loop[i]).join(" ")).toBe("I am here. I am here.");
    expect(collapseRepeats("no no no".split(" "))).toHaveLength(3);
    const words = "the the the the the the the the cat".split(" ");
    expect(collapseRepeats(words).map((i) => words[i]).join(" ")).toBe("the the the the cat");
  });

  it("drops runs of identical segments, silent segments and stock phrases on silence", () => {
    const input = [
      seg("Hello there."),
      seg("Thank you."),
      seg("Thank you."),
      seg("Thank you."),
      seg("Thank you."),
      seg("Thanks for watching!", { noSpeechProb: 0.5, avgLogprob: -0.9 }),
      seg("Something quiet", { noSpeechProb: 0.9, avgLogprob: -1.3 }),
      seg("Goodbye."),
    ];
    const { segments, dropped } = guardSegments(input);
    expect(segments.map((s) => s.text)).toEqual(["Hello there.", "Thank you.", "Thank you.", "Goodbye."]);
    expect(dropped.map((d) => d.reason)).toEqual([
      "identical to the previous segments",
      "identical to the previous segments",
      "stock phrase without speech",
      "no speech",
    ]);
  });

  it("cuts a runaway loop inside one segment to a bounded length", () => {
    const looping = seg(Array.from({ length: 40 }, () => "we will").join(" "));
    const { segments } = guardSegments([looping]);
    expect(segments[0]!.words.length).toBe(4);
    expect(compressionRatio("we will ".repeat(40))).toBeGreaterThan(2.4);
  });
});

describe("worker timing rules", () => {
  it("backs off exponentially with a cap, and scales the time limit with duration", () => {
    const delays = [1, 2, 3, 4].map((a) => backoffMs(a, 1000));
    expect(delays[0]).toBeGreaterThanOrEqual(800);
    expect(delays[0]).toBeLessThanOrEqual(1200);
    expect(delays[3]).toBeGreaterThanOrEqual(6400);
    expect(backoffMs(30, 1000)).toBeLessThanOrEqual(720_000);
    expect(timeLimitSeconds(60, 4)).toBe(360);
    expect(timeLimitSeconds(3 * 3600, 4)).toBe(120 + 43_200);
  });
});
