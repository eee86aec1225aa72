import { execFileSync } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ffmpegPath } from "@transcribe/media/testing/tools";
import { afterAll, describe, expect, it } from "vitest";
import type { LocalTranscriber } from "../src/engines/local/local-transcriber.js";
import { concatWavs, engineUnavailable, synthesize, wordErrorRate, words , testTranscriber } from "./helpers.js";

/**
 * Batched decoding (decision 0026) on the real engine: faster-whisper's
 * BatchedInferencePipeline under the same adapter, windows, seam merge and guard as the
 * sequential path, on speech synthesized with espeak-ng.
 */
const SENTENCES = [
  "Fresh bread was sold at the market every Saturday, and people queued early to buy it.",
  "The baker started work at four in the morning, long before the streets were awake.",
  "Please remember to switch off the lights when you leave the office tonight.",
  "Our electricity bill doubled last winter, and the manager wants everyone to help.",
  "The river rose quickly after three days of heavy rain in the mountains.",
  "Farmers moved their animals to higher ground before the water reached the fields.",
  "A small boat carried letters and medicine to the island twice a week.",
  "Children learned to plant tomatoes and beans in the school garden this spring.",
];

const request = (audio: { path: string; duration: number }, overrides: Partial<Parameters<LocalTranscriber["transcribe"]>[0]> = {}) => ({
  audioPath: audio.path,
  durationSeconds: audio.duration,
  engineModel: "base",
  settings: { language: "en", translateToEn: false, temperature: 0 },
  signal: new AbortController().signal,
  ...overrides,
});

/** Trigrams the transcript has more often than the script: words doubled at a seam, or a loop. */
function overCounted(reference: string, hypothesis: string, n = 3): string[] {
  const grams = (ws: string[]) => {
    const counts = new Map<string, number>();
    for (let i = 0; i + n <= ws.length; i++) counts.set(ws.slice(i, i + n).join(" "), (counts.get(ws.slice(i, i + n).join(" ")) ?? 0) + 1);
    return counts;
  };
  const ref = grams(words(reference));
  return [...grams(words(hypothesis))].filter(([g, c]) => c > (ref.get(g) ?? 0) && c > 1).map(([g]) => g);
}

describe.skipIf(engineUnavailable)("batched decoding (BatchedInferencePipeline, real weights)", () => {
  const engines: LocalTranscriber[] = [];
  const make = (overrides: Partial<ConstructorParameters<typeof LocalTranscriber>[0]> = {}) => {
    const engine = testTranscriber({ batchSize: 4, longFileSeconds: 0, ...overrides });
    engines.push(engine);
    return engine;
  };
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.close()));
  });

  it("transcribes a file cut into windows: low WER, timed words, nothing doubled at the seams", { timeout: 300_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "transcribe-batched-"));
    const clips = [];
    for (const [i, sentence] of SENTENCES.entries()) clips.push((await synthesize(sentence, { voice: i % 2 ? "en-gb" : "en-us", speed: 155, dir })).path);
    const audio = concatWavs(clips, path.join(dir, "all.wav"));
    const script = SENTENCES.join(" ");
    const chunks: number[] = [];
    // Windows of 25 s over ~45 s of speech: two seams the merge must close.
    const result = await make({ chunkSeconds: 25, overlapSeconds: 4 }).transcribe(request(audio, { onChunk: async (c) => void chunks.push(c.index) }));
    const wer = wordErrorRate(script, result.text);
    console.log(`[batched] ${audio.duration.toFixed(1)} s in ${chunks.length} windows, WER ${(wer * 100).toFixed(1)}%: ${result.text}`);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(wer).toBeLessThanOrEqual(0.15);
    expect(overCounted(script, result.text)).toEqual([]);
    let previousEnd = 0;
    for (const segment of result.segments) {
      expect(segment.start).toBeGreaterThanOrEqual(previousEnd - 0.001);
      expect(segment.end).toBeLessThanOrEqual(result.duration + 0.001);
      expect(segment.words.length).toBeGreaterThan(0);
      for (const word of segment.words) {
        expect(word.start).toBeGreaterThanOrEqual(segment.start - 0.001);
        expect(word.end).toBeLessThanOrEqual(segment.end + 0.001);
        expect(word.end).toBeGreaterThanOrEqual(word.start);
      }
      previousEnd = segment.end;
    }
    // Word times follow the speech: "tomatoes" is in the last sentence, so in the last fifth of the file.
    const tomatoes = result.segments.flatMap((s) => s.words).find((w) => w.word.toLowerCase().includes("tomatoes"));
    expect(tomatoes?.start).toBeGreaterThan(audio.duration * 0.8);
  });

  it("detects the language and translates to English", { timeout: 300_000 }, async () => {
    const spanish = "Hoy hace buen tiempo. Vamos a la playa con mis amigos. Después comemos en un restaurante.";
    const speech = await synthesize(spanish, { voice: "es", speed: 140 });
    const engine = make();
    const detected = await engine.transcribe(request(speech, { settings: { language: "auto", translateToEn: false, temperature: 0 } }));
    expect(detected.sourceLanguage).toBe("es");
    expect(words(detected.text)).toEqual(expect.arrayContaining(["playa", "amigos"]));

    const translated = await engine.transcribe(request(speech, { settings: { language: "auto", translateToEn: true, temperature: 0 } }));
    console.log(`[batched] es→en: ${translated.text}`);
    const ws = words(translated.text);
    const english = ws.filter((w) => ["today", "weather", "good", "we", "go", "to", "the", "beach", "with", "my", "friends", "then", "eat", "in", "restaurant"].includes(w));
    expect(translated.language).toBe("en");
    expect(translated.sourceLanguage).toBe("es");
    expect(english.length).toBeGreaterThanOrEqual(4);
    expect(ws.filter((w) => ["playa", "amigos", "comemos", "hace"].includes(w))).toEqual([]);
  });

  it("says nothing in long silences (VAD) and keeps the guard on what it decodes", { timeout: 300_000 }, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "transcribe-batched-"));
    const silence = path.join(dir, "silence.wav");
    execFileSync(ffmpegPath, ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "20", "-c:a", "pcm_s16le", silence]);
    const speech = await synthesize(SENTENCES[0]!, { dir });
    const audio = concatWavs([silence, speech.path, silence], path.join(dir, "quiet.wav"));
    const result = await make().transcribe(request(audio));
    console.log(`[batched] silence + speech + silence: ${JSON.stringify(result.segments.map((s) => [s.start, s.end, s.text]))}`);
    expect(wordErrorRate(SENTENCES[0]!, result.text)).toBeLessThanOrEqual(0.15);
    for (const segment of result.segments) {
      expect(segment.start).toBeGreaterThanOrEqual(19);
      expect(segment.end).toBeLessThanOrEqual(20 + speech.duration + 1);
    }
    expect(result.dropped).toEqual([]);
  });
});
