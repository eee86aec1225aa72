import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { mediaToolsEnv } from "@transcribe/media/testing/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { availabilityOf } from "../src/catalog.js";
import { findModel } from "../src/domain/models.js";
import { TranscriberError, type TranscribeRequest } from "../src/domain/transcriber.js";
import { ElevenLabsTranscriber } from "../src/engines/cloud/elevenlabs.js";
import { GroqTranscriber } from "../src/engines/cloud/groq.js";
import { segmentsFromWords } from "../src/engines/cloud/windows.js";
import { concatWavs, engineUnavailable, synthesize, wordErrorRate, words } from "./helpers.js";
import { startElevenLabsServer, startGroqServer, type ProviderServer } from "./providers.js";

// The adapters cut windows with the ffmpeg the embedded launcher hands the worker
// (FFMPEG_PATH: media's choice, the npm package's on a machine without a system one).
Object.assign(process.env, mediaToolsEnv);

const ENGLISH = [
  "The committee met on Tuesday morning to review the budget for the new library.",
  "Several members asked whether the building could open before the end of the summer.",
];
const SPANISH = "Hoy hace buen tiempo. Vamos a la playa con mis amigos. Después comemos en un restaurante.";

const request = (audio: { path: string; duration: number }, extra: Partial<TranscribeRequest> = {}): TranscribeRequest => ({
  audioPath: audio.path,
  durationSeconds: audio.duration,
  engineModel: "whisper-large-v3",
  settings: { language: "en", translateToEn: false, temperature: 0 },
  signal: new AbortController().signal,
  ...extra,
});

describe("catalog availability of cloud models", () => {
  const locations = { explicit: {}, dataModelsDir: "/nonexistent", allowDownload: false };
  it("is unavailable without a key, available with one", () => {
    const groq = findModel("whisper-large-v3")!;
    const scribe = findModel("scribe-v1")!;
    const engines = new Set(["local", "groq", "elevenlabs"]);
    expect(availabilityOf(groq, { locations, engines })).toEqual({ available: false, reason: "Needs a Groq API key (GROQ_API_KEY) on the server" });
    expect(availabilityOf(groq, { locations, engines, keys: { groq: "k" } })).toEqual({ available: true });
    expect(availabilityOf(scribe, { locations, engines })).toMatchObject({ available: false });
    expect(availabilityOf(scribe, { locations, engines, keys: { elevenlabs: "k" } })).toEqual({ available: true });
  });

  it("makes segments from Scribe's flat word list at sentence ends and pauses", () => {
    const ws = [" Hello", " there.", " How", " are", " you?", " Fine"].map((word, i) => ({ word, start: i, end: i + 0.5 }));
    ws[5] = { word: " Fine", start: 8, end: 8.5 };
    expect(segmentsFromWords(ws).map((s) => s.text)).toEqual([" Hello there.", " How are you?", " Fine"]);
  });
});

describe.skipIf(engineUnavailable)("Groq adapter against a server with Groq's API shapes", () => {
  let server: ProviderServer;
  let dir: string;
  let english: { path: string; duration: number };
  beforeAll(async () => {
    server = await startGroqServer("gsk_test_key");
    dir = await mkdtemp(path.join(tmpdir(), "groq-"));
    english = concatWavs([(await synthesize(ENGLISH[0]!, { dir })).path, (await synthesize(ENGLISH[1]!, { dir })).path], path.join(dir, "en.wav"));
  }, 60_000);
  afterAll(async () => server?.close());

  it("sends verbose_json with word and segment granularities and returns timed words", { timeout: 180_000 }, async () => {
    const groq = new GroqTranscriber({ apiKey: "gsk_test_key", baseURL: server.url });
    const result = await groq.transcribe({ ...request(english), settings: { language: "en", translateToEn: false, temperature: 0, prompt: "A committee meeting." }, vocabulary: ["EyeLink", "Real Reaction"] });
    const sent = server.requests.at(-1)!;
    expect(sent.path).toBe("/openai/v1/audio/transcriptions");
    // The vocabulary follows the user's prompt (decision 0029).
    expect(sent.fields.prompt).toBe("A committee meeting. EyeLink, Real Reaction.");
    expect(sent.fields).toMatchObject({ model: "whisper-large-v3", response_format: "verbose_json", language: "en", "timestamp_granularities[]": ["word", "segment"] });
    expect(sent.file).toMatchObject({ type: "audio/flac", magic: "fLaC" });
    const wer = wordErrorRate(ENGLISH.join(" "), result.text);
    expect(wer).toBeLessThanOrEqual(0.2);
    expect(result.language).toBe("en");
    expect(result.engine).toEqual({ name: "groq", model: "whisper-large-v3" });
    expect(result.segments[0]!.words.length).toBeGreaterThan(0);
  });

  it("sends long audio as several requests under the size limit and merges them", { timeout: 300_000 }, async () => {
    const before = server.requests.length;
    const groq = new GroqTranscriber({ apiKey: "gsk_test_key", baseURL: server.url, windowSeconds: 5, overlapSeconds: 1.5 });
    const result = await groq.transcribe(request(english, { engineModel: "whisper-large-v3-turbo" }));
    const sent = server.requests.slice(before);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    for (const r of sent) expect(r.file!.size).toBeLessThan(25 * 1024 * 1024);
    const reference = ENGLISH.join(" ");
    expect(wordErrorRate(reference, result.text)).toBeLessThanOrEqual(0.2);
    expect(Math.abs(words(result.text).length - words(reference).length)).toBeLessThanOrEqual(2);
  });

  it("translates with whisper-large-v3 on /audio/translations", { timeout: 180_000 }, async () => {
    const spanish = await synthesize(SPANISH, { voice: "es", speed: 140, dir });
    const groq = new GroqTranscriber({ apiKey: "gsk_test_key", baseURL: server.url });
    const result = await groq.transcribe(request(spanish, { settings: { language: "es", translateToEn: true, temperature: 0 } }));
    expect(server.requests.at(-1)!.path).toBe("/openai/v1/audio/translations");
    expect(result.language).toBe("en");
    expect(words(result.text).filter((w) => ["today", "is", "a", "good", "we", "go", "to", "the", "beach", "with", "my", "friends", "then", "eat", "in", "restaurant"].includes(w)).length).toBeGreaterThanOrEqual(6);
  });

  it("turns a 429 into a transient error carrying retry-after, and a bad key into a permanent one", { timeout: 60_000 }, async () => {
    server.rateLimit(1, 7);
    const limited = await new GroqTranscriber({ apiKey: "gsk_test_key", baseURL: server.url }).transcribe(request(english)).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(TranscriberError);
    expect(limited).toMatchObject({ kind: "transient", retryAfterMs: 7000 });
    expect((limited as Error).message).toMatch(/^Groq's rate limit was reached: Rate limit reached/);
    const refused = await new GroqTranscriber({ apiKey: "wrong", baseURL: server.url }).transcribe(request(english)).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: "permanent", message: "Groq refused the server's API key (GROQ_API_KEY)" });
  });
});

describe.skipIf(engineUnavailable)("ElevenLabs adapter against a server with Scribe's API shapes", () => {
  let server: ProviderServer;
  let english: { path: string; duration: number };
  beforeAll(async () => {
    server = await startElevenLabsServer("xi_test_key");
    english = await synthesize(ENGLISH[0]!);
  }, 60_000);
  afterAll(async () => server?.close());

  it("runs scribe_v2 with word timestamps and makes segments from the words", { timeout: 180_000 }, async () => {
    const scribe = new ElevenLabsTranscriber({ apiKey: "xi_test_key", baseURL: server.url });
    const result = await scribe.transcribe({ ...request(english, { engineModel: "scribe_v2" }), vocabulary: ["EyeLink", "Real Reaction", "one two three four five six"] });
    const sent = server.requests.at(-1)!;
    expect(sent.headers["xi-api-key"]).toBe("xi_test_key");
    // Scribe's key terms, within its limits (at most 5 words a term).
    expect(sent.fields.keyterms).toEqual(["EyeLink", "Real Reaction"]);
    expect(sent.fields).toMatchObject({ model_id: "scribe_v2", timestamps_granularity: "word", language_code: "eng", tag_audio_events: "false" });
    expect(wordErrorRate(ENGLISH[0]!, result.text)).toBeLessThanOrEqual(0.2);
    expect(result.language).toBe("en");
    expect(result.segments.length).toBeGreaterThan(0);
    expect(result.segments.flatMap((s) => s.words).every((w) => w.end >= w.start)).toBe(true);
  });

  it("maps a refused model, a bad key and a rate limit to readable errors", { timeout: 60_000 }, async () => {
    const scribe = new ElevenLabsTranscriber({ apiKey: "xi_test_key", baseURL: server.url });
    const removed = await scribe.transcribe(request(english, { engineModel: "scribe_v1" })).catch((e: unknown) => e);
    expect(removed).toMatchObject({ kind: "permanent", message: "ElevenLabs refused the audio (HTTP 400): Model scribe_v1 is not available; use scribe_v2" });
    server.rateLimit(1, 3);
    expect(await scribe.transcribe(request(english, { engineModel: "scribe_v2" })).catch((e: unknown) => e)).toMatchObject({ kind: "transient", retryAfterMs: 3000 });
    const refused = await new ElevenLabsTranscriber({ apiKey: "nope", baseURL: server.url }).transcribe(request(english, { engineModel: "scribe_v2" })).catch((e: unknown) => e);
    expect(refused).toMatchObject({ kind: "permanent", message: "ElevenLabs refused the server's API key (ELEVENLABS_API_KEY)" });
    const translate = await scribe.transcribe(request(english, { engineModel: "scribe_v2", settings: { language: "en", translateToEn: true, temperature: 0 } })).catch((e: unknown) => e);
    expect(translate).toMatchObject({ kind: "permanent" });
  });
});
