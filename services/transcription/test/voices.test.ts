import { existsSync } from "node:fs";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { createServiceClient, newEvent, toEnvelope } from "@transcribe/platform";
import { UserDeletedSchema } from "@transcribe/proto/events/v1/events";
import { MediaService } from "@transcribe/proto/media/v1/media";
import { TranscriptionStatus } from "@transcribe/proto/transcription/v1/transcription";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildConversation, type VOICES } from "../../../bench/diarization/conversation.js";
import { SPEAKER_WHEEL } from "../src/engines/local/diarizer.js";
import { transcriptionConsumer } from "../src/events/consumer.js";
import { cosine, matchConfidence, matchVoices, strengthen, unit, VOICE_MATCH_THRESHOLD } from "../src/domain/voices.js";
import { JobRunner } from "../src/worker/job-runner.js";
import { engineUnavailable, logger, migratedDatabase, startMediaServer, startTranscriptionApi, testTranscriber, testWorkerOptions, whisperModelsDir, whisperPython } from "./helpers.js";

const weights = path.join(whisperModelsDir, "speaker-encoder", SPEAKER_WHEEL);
const unavailable = engineUnavailable ?? (existsSync(weights) ? undefined : `no speaker-encoder weights at ${weights}`);
if (unavailable && process.env.CI) throw new Error(`The diarizer is required in CI: ${unavailable}`);

const axis = (i: number, j?: number, weight = 0.3) => unit(Array.from({ length: 256 }, (_, k) => (k === i ? 1 : j !== undefined && k === j ? weight : 0)));

describe("voice-library rules", () => {
  it("gives each voice to at most one speaker, the most alike first, never under the threshold", () => {
    const alex = { id: "v-alex", name: "Alex", embedding: axis(0) };
    const blair = { id: "v-blair", name: "Blair", embedding: axis(1) };
    // S1 and S2 both resemble Alex; S2 more. S3 resembles nobody.
    const matches = matchVoices(
      [
        { id: "S1", embedding: axis(0, 2) },
        { id: "S2", embedding: axis(0) },
        { id: "S3", embedding: axis(5) },
      ],
      [alex, blair],
    );
    expect([...matches.entries()].map(([s, m]) => [s, m.name])).toEqual([["S2", "Alex"]]);
    expect(matches.get("S2")!.confidence).toBe(1);
    expect(cosine(axis(0, 2), axis(0))).toBeGreaterThan(VOICE_MATCH_THRESHOLD);
    // Alike, but under the threshold: no name.
    expect(cosine(axis(1, 3, 0.8), axis(1))).toBeLessThan(VOICE_MATCH_THRESHOLD);
    expect(matchVoices([{ id: "S1", embedding: axis(1, 3, 0.8) }], [alex, blair]).size).toBe(0);
    expect(matchConfidence(VOICE_MATCH_THRESHOLD)).toBe(0.5);
    expect(matchConfidence(1)).toBe(1);
  });

  it("strengthens a voice as a running mean that stays unit length", () => {
    const once = strengthen(axis(0), 1, axis(1));
    expect(cosine(once, axis(0))).toBeCloseTo(Math.SQRT1_2, 5);
    const thrice = strengthen(strengthen(axis(0), 1, axis(0)), 2, axis(1));
    expect(cosine(thrice, axis(0))).toBeGreaterThan(cosine(once, axis(0)));
    expect(Math.hypot(...thrice)).toBeCloseTo(1, 6);
  });
});

describe.skipIf(unavailable)("voices known across recordings (real PostgreSQL, real engine, real speech)", () => {
  let database: Awaited<ReturnType<typeof migratedDatabase>>;
  let media: Awaited<ReturnType<typeof startMediaServer>>;
  let api: Awaited<ReturnType<typeof startTranscriptionApi>>;
  let worker: JobRunner;
  const alice = crypto.randomUUID();
  const bob = crypto.randomUUID();
  const carol = crypto.randomUUID();
  // Two recordings of the same two voices with different words; in the second, B speaks first.
  const lines1: Array<[keyof typeof VOICES, string]> = [
    ["A", "Good morning everyone, thanks for joining the weekly planning meeting today."],
    ["B", "Thanks. Before we start, can you tell me whether the customer reports are ready?"],
    ["A", "We finished the migration of the billing database last Thursday without any downtime."],
    ["B", "That is great news. Did anyone notice the slower queries on the dashboard afterwards?"],
  ];
  const lines2: Array<[keyof typeof VOICES, string]> = [
    ["B", "Let us start with the budget, because the finance team asked for the numbers on Friday."],
    ["A", "The hosting costs went down a little after we moved the workers to the new machines."],
    ["B", "Good. And the support queue, is it still growing every week like last month?"],
    ["A", "No, it is shorter now, the new help pages answer most of the common questions."],
  ];
  let first: ReturnType<typeof buildConversation>;
  let second: ReturnType<typeof buildConversation>;

  beforeAll(async () => {
    database = await migratedDatabase();
    media = await startMediaServer();
    api = await startTranscriptionApi(database.db, media.url, whisperModelsDir);
    first = buildConversation({ lines: lines1 });
    second = buildConversation({ lines: lines2 });
    worker = new JobRunner({
      db: database.db,
      media: createServiceClient(MediaService, media.url),
      logger,
      diarizer: { python: whisperPython, weightsCandidates: [weights] },
      createTranscriber: () =>
        testTranscriber({ beamSize: 1 }),
      options: testWorkerOptions,
    });
    worker.start();
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await api?.close();
    await media?.close();
    await database?.close();
  });

  async function transcribe(userId: string, recording: { path: string; duration: number }) {
    const file = media.addFile({ userId, audioPath: recording.path, duration: recording.duration });
    const { transcriptionId } = await api.client.createTranscription({
      userId,
      fileId: file.id,
      settings: { model: "whisper-tiny.en", language: "en", diarize: true, minSpeakers: 2, maxSpeakers: 2 },
    });
    for (let i = 0; i < 1200; i++) {
      const { transcription } = await api.client.getTranscription({ userId, id: transcriptionId });
      if (transcription?.status === TranscriptionStatus.COMPLETED) return transcription;
      if (transcription?.status === TranscriptionStatus.FAILED) throw new Error(`failed: ${transcription.error}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error("job did not finish");
  }

  /** The speaker id of the transcript whose words fall mostly in the given voice's turns. */
  function speakerOf(t: Awaited<ReturnType<typeof transcribe>>, recording: ReturnType<typeof buildConversation>, voice: "A" | "B"): string {
    const time = new Map<string, number>();
    for (const s of t.result!.segments) {
      const mid = (s.start + s.end) / 2;
      const turn = recording.turns.find((x) => mid >= x.start - 0.3 && mid <= x.end + 0.3);
      if (turn?.speaker === voice && s.speaker) time.set(s.speaker, (time.get(s.speaker) ?? 0) + s.end - s.start);
    }
    return [...time.entries()].sort((a, b) => b[1] - a[1])[0]![0];
  }

  const code = (e: unknown) => ConnectError.from(e).code;

  it("names the speakers of a second recording after the voices named in the first, for their owner only; undo and delete stop the names", { timeout: 900_000 }, async () => {
    expect((await api.client.getVoiceSettings({ userId: alice })).enabled).toBe(false);
    expect((await api.client.setVoiceSettings({ userId: alice, enabled: true })).enabled).toBe(true);
    await api.client.setVoiceSettings({ userId: bob, enabled: true });

    const one = await transcribe(alice, first);
    expect(one.result!.speakers.map((s) => s.name).sort()).toEqual(["S1", "S2"]);
    const a1 = speakerOf(one, first, "A");
    const b1 = speakerOf(one, first, "B");
    expect(a1).not.toBe(b1);
    await api.client.renameSpeaker({ userId: alice, id: one.id, speakerId: a1, name: "Alex" });
    const renamed = await api.client.renameSpeaker({ userId: alice, id: one.id, speakerId: b1, name: "Blair" });
    expect(renamed.speakers.every((s) => s.voiceId && s.confidence === undefined)).toBe(true);
    const voices = (await api.client.listVoices({ userId: alice })).voices;
    expect(voices.map((v) => [v.name, v.samples])).toEqual([
      ["Alex", 1],
      ["Blair", 1],
    ]);
    // The library stores embeddings only, and only the owner sees them.
    expect((await api.client.listVoices({ userId: bob })).voices).toEqual([]);

    const two = await transcribe(alice, second);
    const a2 = speakerOf(two, second, "A");
    const b2 = speakerOf(two, second, "B");
    const named = Object.fromEntries(two.result!.speakers.map((s) => [s.id, s]));
    console.log(`[voices] second recording: ${JSON.stringify(two.result!.speakers)}`);
    expect(named[a2]).toMatchObject({ name: "Alex", voiceId: voices[0]!.id });
    expect(named[b2]).toMatchObject({ name: "Blair", voiceId: voices[1]!.id });
    for (const s of two.result!.speakers) expect(s.confidence).toBeGreaterThanOrEqual(0.5);

    // Another user's transcription of the same audio: anonymous speakers.
    const bobs = await transcribe(bob, second);
    expect(bobs.result!.speakers.map((s) => s.name).sort()).toEqual(["S1", "S2"]);
    expect(bobs.result!.speakers.every((s) => s.voiceId === undefined && s.confidence === undefined)).toBe(true);

    // Undo a match: the speaker is anonymous again; only a matched speaker can be undone.
    const undone = await api.client.unmatchSpeaker({ userId: alice, id: two.id, speakerId: b2 });
    const back = undone.speakers.find((s) => s.id === b2)!;
    expect([back.name, back.voiceId, back.confidence]).toEqual([b2, undefined, undefined]);
    expect(code(await api.client.unmatchSpeaker({ userId: alice, id: two.id, speakerId: b2 }).catch((e) => e))).toBe(Code.NotFound);
    expect(code(await api.client.unmatchSpeaker({ userId: bob, id: two.id, speakerId: a2 }).catch((e) => e))).toBe(Code.NotFound);

    // Confirming a match strengthens the voice (a second sample).
    await api.client.renameSpeaker({ userId: alice, id: two.id, speakerId: a2, name: "Alex" });
    expect((await api.client.listVoices({ userId: alice })).voices.find((v) => v.name === "Alex")!.samples).toBe(2);

    // Rename and delete: not another user's voice; a deleted voice matches no more.
    expect(code(await api.client.renameVoice({ userId: bob, id: voices[1]!.id, name: "Stolen" }).catch((e) => e))).toBe(Code.NotFound);
    expect(code(await api.client.renameVoice({ userId: alice, id: voices[1]!.id, name: "Alex" }).catch((e) => e))).toBe(Code.AlreadyExists);
    expect((await api.client.renameVoice({ userId: alice, id: voices[1]!.id, name: " Blair Smith " })).voice!.name).toBe("Blair Smith");
    expect(code(await api.client.deleteVoice({ userId: bob, id: voices[0]!.id }).catch((e) => e))).toBe(Code.NotFound);
    await api.client.deleteVoice({ userId: alice, id: voices[0]!.id });
    expect((await api.client.listVoices({ userId: alice })).voices.map((v) => v.name)).toEqual(["Blair Smith"]);
    expect(await database.db.selectFrom("voices").select("id").where("id", "=", voices[0]!.id).execute()).toEqual([]);
    const three = await transcribe(alice, second);
    const by = Object.fromEntries(three.result!.speakers.map((s) => [s.id, s.name]));
    expect(by[speakerOf(three, second, "A")]).not.toBe("Alex");
    expect(by[speakerOf(three, second, "B")]).toBe("Blair Smith");

    // Account deletion takes the library with it.
    await transcriptionConsumer(database.db, logger)(toEnvelope(newEvent(UserDeletedSchema, { userId: alice })));
    for (const table of ["voices", "transcription_speaker_voices", "voice_settings"] as const) {
      expect(await database.db.selectFrom(table).select("user_id").where("user_id", "=", alice).execute()).toEqual([]);
    }
  });

  it("with the library off (the default) nothing is kept or saved, and turning it off forgets every voice", { timeout: 600_000 }, async () => {
    const t = await transcribe(carol, first);
    await api.client.renameSpeaker({ userId: carol, id: t.id, speakerId: "S1", name: "Someone" });
    expect((await api.client.listVoices({ userId: carol })).voices).toEqual([]);
    expect(await database.db.selectFrom("transcription_speaker_voices").select("user_id").where("user_id", "=", carol).execute()).toEqual([]);
    expect((await api.client.getTranscription({ userId: carol, id: t.id })).transcription!.result!.speakers.every((s) => s.voiceId === undefined)).toBe(true);

    // Bob's library (on since the first test) has kept his speakers' voices; off forgets them.
    expect((await database.db.selectFrom("transcription_speaker_voices").select("user_id").where("user_id", "=", bob).execute()).length).toBeGreaterThan(0);
    expect((await api.client.setVoiceSettings({ userId: bob, enabled: false })).enabled).toBe(false);
    expect(await database.db.selectFrom("transcription_speaker_voices").select("user_id").where("user_id", "=", bob).execute()).toEqual([]);
    expect((await api.client.getVoiceSettings({ userId: bob })).enabled).toBe(false);
  });
});
