import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ffmpegPath } from "@transcribe/media/testing/tools";
import { createServiceClient } from "@transcribe/platform";
import { MediaService } from "@transcribe/proto/media/v1/media";
import { TimestampGranularity, TranscriptionStatus } from "@transcribe/proto/transcription/v1/transcription";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConversation, DIALOGUE } from "../../../bench/diarization/conversation.js";
import { applyEdit } from "../src/domain/edit-timing.js";
import { assignSpeakers } from "../src/domain/speakers.js";
import { SPEAKER_WHEEL, type DiarizerOptions } from "../src/engines/local/diarizer.js";
import { JobRunner } from "../src/worker/job-runner.js";
import { engineUnavailable, logger, migratedDatabase, startMediaServer, startTranscriptionApi, testTranscriber, testWorkerOptions, whisperModelsDir, whisperPython } from "./helpers.js";

/**
 * Speakers never fail a transcript (decision 0020): whatever stops the diarizer, the
 * transcript completes without speakers and result.speakers_note says why; and the
 * diarizer needs no ffmpeg program (it decodes with the engine's PyAV).
 */
const weights = path.join(whisperModelsDir, "speaker-encoder", SPEAKER_WHEEL);
const unavailable = engineUnavailable ?? (existsSync(weights) ? undefined : `no speaker-encoder weights at ${weights}`);
if (unavailable && process.env.CI) throw new Error(`The diarizer is required in CI: ${unavailable}`);

describe("speaker turns and reassignment (rules)", () => {
  const w = (word: string, start: number) => ({ word, start, end: start + 0.4 });
  const segments = [
    { start: 0, end: 0.9, text: " Hello there.", words: [w(" Hello", 0), w(" there.", 0.5)] },
    { start: 3, end: 3.9, text: " Fine thanks.", words: [w(" Fine", 3), w(" thanks.", 3.5)] },
  ];

  it("keeps the diarizer's turns under the transcript's ids, a voice heard between words included", () => {
    const { speakers, speakerTurns } = assignSpeakers(segments, [
      { start: 0, end: 1.2, speaker: "S2" },
      { start: 1.4, end: 2.6, speaker: "S3" }, // no word was written here
      { start: 2.9, end: 4.1, speaker: "S1" },
    ]);
    expect(speakerTurns).toEqual([
      { start: 0, end: 1.2, speaker: "S1" },
      { start: 1.4, end: 2.6, speaker: "S3" },
      { start: 2.9, end: 4.1, speaker: "S2" },
    ]);
    expect(speakers.map((s) => s.id)).toEqual(["S1", "S2", "S3"]);
  });

  it("a segment given to another speaker takes its words with it; the others stay as they were", () => {
    const { segments: labelled } = assignSpeakers(segments, [
      { start: 0, end: 1.2, speaker: "S1" },
      { start: 2.9, end: 4.1, speaker: "S2" },
    ]);
    const base = labelled.map((s, id) => ({ ...s, id }));
    const out = applyEdit(base, [{ id: 0, text: "Hello there.", speaker: "S2" }, { id: 1, text: "Fine thanks." }], 2);
    expect(out.segments[0]!.speaker).toBe("S2");
    expect(out.segments[0]!.words.map((x) => x.speaker)).toEqual(["S2", "S2"]);
    expect(out.segments[1]).toBe(base[1]);
    expect(out.changes.edited_segments).toEqual([0]);
  });
});

describe.skipIf(unavailable)("a transcription with speakers always completes (real PostgreSQL, real engine and diarizer)", () => {
  let database: Awaited<ReturnType<typeof migratedDatabase>>;
  let media: Awaited<ReturnType<typeof startMediaServer>>;
  let api: Awaited<ReturnType<typeof startTranscriptionApi>>;
  const userId = crypto.randomUUID();
  let conversation: ReturnType<typeof buildConversation>;

  beforeAll(async () => {
    database = await migratedDatabase();
    media = await startMediaServer();
    api = await startTranscriptionApi(database.db, media.url, whisperModelsDir);
    conversation = buildConversation({ lines: DIALOGUE.slice(0, 4) });
  });
  afterAll(async () => {
    await api?.close();
    await media?.close();
    await database?.close();
  });

  function runner(diarizer: Partial<DiarizerOptions> = {}) {
    return new JobRunner({
      db: database.db,
      media: createServiceClient(MediaService, media.url),
      logger,
      diarizer: { python: whisperPython, weightsCandidates: [weights], ...diarizer },
      createTranscriber: () =>
        testTranscriber({ beamSize: 1 }),
      options: testWorkerOptions,
    });
  }

  async function transcribeWithSpeakers(audioPath: string, diarizer: Partial<DiarizerOptions> = {}) {
    const file = media.addFile({ userId, audioPath, duration: conversation.duration });
    const created = await api.client.createTranscription({
      userId,
      fileId: file.id,
      settings: { model: "whisper-tiny.en", language: "en", diarize: true, timestampGranularities: [TimestampGranularity.SEGMENT, TimestampGranularity.WORD] },
    });
    const worker = runner(diarizer);
    worker.start();
    try {
      for (let i = 0; i < 1200; i++) {
        const { transcription } = await api.client.getTranscription({ userId, id: created.transcriptionId });
        if (transcription && [TranscriptionStatus.COMPLETED, TranscriptionStatus.FAILED].includes(transcription.status)) {
          const job = await database.db.selectFrom("transcription_jobs").select(["attempts"]).where("transcription_id", "=", created.transcriptionId).executeTakeFirstOrThrow();
          return { transcription, attempts: job.attempts };
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error("job did not finish");
    } finally {
      await worker.stop();
    }
  }

  function expectNoSpeakers(done: Awaited<ReturnType<typeof transcribeWithSpeakers>>, note: RegExp) {
    expect(done.transcription.status).toBe(TranscriptionStatus.COMPLETED);
    // First try: a diarizer failure is not a reason to transcribe again.
    expect(done.attempts).toBe(1);
    const result = done.transcription.result!;
    expect(result.text.toLowerCase()).toContain("morning");
    expect(result.speakers).toEqual([]);
    expect(result.speakerTurns).toEqual([]);
    expect(result.segments.every((s) => s.speaker === undefined)).toBe(true);
    expect(result.speakersNote).toMatch(note);
  }

  it("a corrupt audio stream that the transcriber reads past completes without speakers, and says why", { timeout: 300_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "corrupt-stream-"));
    const mp3 = path.join(dir, "conversation.mp3");
    execFileSync(ffmpegPath, ["-v", "error", "-y", "-i", conversation.path, "-c:a", "libmp3lame", "-b:a", "64k", mp3]);
    const bytes = readFileSync(mp3);
    // Garbage over a stretch in the second half: frames there cannot be decoded.
    const from = Math.floor(bytes.length * 0.6);
    for (let i = from; i < from + 8000; i++) bytes[i] = (i * 7919) % 251;
    const corrupt = path.join(dir, "corrupt.mp3");
    writeFileSync(corrupt, bytes);
    expectNoSpeakers(await transcribeWithSpeakers(corrupt), /^Speakers could not be identified: Cannot decode audio: .*Invalid data/);
  });

  it("weights removed: completes without speakers, and says why", { timeout: 300_000 }, async () => {
    expectNoSpeakers(
      await transcribeWithSpeakers(conversation.path, { weightsCandidates: [path.join(tmpdir(), "removed", SPEAKER_WHEEL)] }),
      /^Speakers could not be identified: the speaker model is not installed on this server/,
    );
  });

  it("the diarizer's time limit: completes without speakers, and says why", { timeout: 300_000 }, async () => {
    expectNoSpeakers(
      await transcribeWithSpeakers(conversation.path, { timeLimit: { baseSeconds: 0.3, perAudioSecond: 0 } }),
      /^Speakers could not be identified: the diarizer took longer than its time limit/,
    );
  });

  it("a diarizer that crashes: completes without speakers, and says why", { timeout: 300_000 }, async () => {
    // A Python that dies at once stands for the diarizer process crashing.
    const dir = mkdtempSync(path.join(tmpdir(), "crashing-python-"));
    const python = path.join(dir, "python");
    writeFileSync(python, "#!/bin/sh\necho 'Segmentation fault' >&2\nkill -SEGV $$\n", { mode: 0o755 });
    expectNoSpeakers(await transcribeWithSpeakers(conversation.path, { python }), /^Speakers could not be identified: the diarizer stopped/);
  });

  it("with no ffmpeg on PATH, the transcript gets its speakers and the diarizer's own turns", { timeout: 300_000 }, async () => {
    // PATH holds only node and a shell: no ffmpeg or ffprobe anywhere on it.
    const bin = mkdtempSync(path.join(tmpdir(), "no-ffmpeg-path-"));
    symlinkSync(process.execPath, path.join(bin, "node"));
    symlinkSync("/bin/sh", path.join(bin, "sh"));
    const saved = process.env.PATH;
    process.env.PATH = bin;
    try {
      expect(() => execFileSync("ffmpeg", ["-version"], { stdio: "ignore" })).toThrow();
      const done = await transcribeWithSpeakers(conversation.path);
      expect(done.transcription.status).toBe(TranscriptionStatus.COMPLETED);
      const result = done.transcription.result!;
      expect(result.speakersNote).toBeUndefined();
      expect(result.speakers.map((s) => s.id)).toEqual(["S1", "S2"]);
      // The turns are the diarizer's: in time order, under the transcript's ids, and they
      // cover the speech, not only the words' own spans.
      const turns = result.speakerTurns;
      expect(turns.length).toBeGreaterThanOrEqual(4);
      expect(turns.every((t, i) => t.end > t.start && (i === 0 || t.start >= turns[i - 1]!.end - 1e-6))).toBe(true);
      expect(new Set(turns.map((t) => t.speaker))).toEqual(new Set(["S1", "S2"]));
      const reference = conversation.turns;
      for (const ref of reference) {
        const mid = (ref.start + ref.end) / 2;
        const heard = turns.find((t) => t.start <= mid && mid <= t.end);
        expect(heard?.speaker).toBe(ref.speaker === reference[0]!.speaker ? "S1" : "S2");
      }
    } finally {
      process.env.PATH = saved;
    }
  });
});
