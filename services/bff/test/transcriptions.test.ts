import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor, } from "../../media/test/harness.js";
import { buildConversation, DIALOGUE } from "../../../bench/diarization/conversation.js";
import { engineUnavailable, synthesize, wordErrorRate } from "../../transcription/test/helpers.js";
import { type DashboardStack, startDashboardStack } from "./dashboard-stack.js";

const SCRIPT = "The committee met on Tuesday morning to review the budget for the new library.";

/**
 * The dashboard's journey through the BFF: the real auth service (magic-link sessions),
 * the real media service (upload, ffprobe, transcode), the transcription API and worker
 * with the real local Whisper engine on real weights, and speech synthesized here.
 */
describe.skipIf(engineUnavailable)("transcriptions through the BFF", () => {
  let dir: string;
  let alice: string;
  let bob: string;
  let api: DashboardStack["api"];
  let upload: DashboardStack["upload"];
  let stack: DashboardStack | undefined;

  beforeAll(async () => {
    stack = await startDashboardStack("transcripts");
    ({ dir, alice, bob, api, upload } = stack);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });


  it("lists the models, refuses bad settings with the spec's messages, transcribes, renames, deletes; others get 404", { timeout: 600_000 }, async () => {
    const models = (await (await api(alice, "GET", "/api/v1/models")).json()) as { models: Array<{ id: string; available: boolean; reason?: string }> };
    expect(models.models.find((m) => m.id === "whisper-tiny.en")).toMatchObject({ available: true });
    expect(models.models.find((m) => m.id === "scribe-v1")).toMatchObject({ available: false });
    expect((await api(undefined, "GET", "/api/v1/transcriptions")).status).toBe(401);

    const speech = await synthesize(SCRIPT, { dir });
    const fileId = await upload(alice, speech.path, speech.duration);

    const noLanguage = await api(alice, "POST", "/api/v1/transcriptions", { file_id: fileId, settings: { model: "whisper-base", language: "" } });
    expect(noLanguage.status).toBe(400);
    expect(((await noLanguage.json()) as { error: { message: string } }).error.message).toBe("Please select a language");
    const enToEn = await api(alice, "POST", "/api/v1/transcriptions", { file_id: fileId, settings: { model: "whisper-base", language: "en", translate_to_en: true } });
    expect(((await enToEn.json()) as { error: { message: string } }).error.message).toBe("Cannot translate English to English");
    expect((await api(bob, "POST", "/api/v1/transcriptions", { file_id: fileId, settings: { model: "whisper-tiny.en", language: "en" } })).status).toBe(404);

    // The file may still be processing: the job waits for media (status processing) and then runs.
    const started = await api(alice, "POST", "/api/v1/transcriptions", {
      file_id: fileId,
      settings: { model: "whisper-tiny.en", language: "en", timestamp_granularities: ["segment", "word"] },
    });
    expect(started.status).toBe(200);
    const { job_id, transcription_id: id } = (await started.json()) as { job_id: string; transcription_id: string };
    expect(job_id).toBeTruthy();

    // Cheap polling: the same list answers 304 to its own ETag until something changes.
    const first = await api(alice, "GET", "/api/v1/transcriptions?limit=10");
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^W\//);
    const seen = new Set<string>();
    const done = await waitFor(async () => {
      const response = await api(alice, "GET", "/api/v1/transcriptions?limit=10", undefined, { "if-none-match": etag });
      if (response.status === 304) return undefined;
      const list = (await response.json()) as { transcriptions: Array<{ id: string; status: string }>; total_count: number };
      const item = list.transcriptions.find((t) => t.id === id)!;
      seen.add(item.status);
      return item.status === "completed" || item.status === "failed" ? item : undefined;
    }, "the transcription to finish", 400_000);
    expect(done.status).toBe("completed");

    const detail = (await (await api(alice, "GET", `/api/v1/transcriptions/${id}`)).json()) as {
      status: string;
      result: { text: string; language: string; duration: number; segments: Array<{ start: number; end: number; words?: unknown[] }> };
      audio_file: { file_name: string };
    };
    const wer = wordErrorRate(SCRIPT, detail.result.text);
    console.log(`[bff] journey WER ${(wer * 100).toFixed(1)}%: ${detail.result.text}`);
    expect(wer).toBeLessThanOrEqual(0.2);
    expect(detail.audio_file.file_name).toBe("speech.wav");
    expect(detail.result.segments[0]!.words!.length).toBeGreaterThan(0);
    for (const s of detail.result.segments) expect(s.end).toBeLessThanOrEqual(detail.result.duration + 0.001);

    const audio = (await (await api(alice, "GET", `/api/v1/transcriptions/${id}/audio-url`)).json()) as { url: string };
    expect((await fetch(audio.url, { headers: { range: "bytes=0-3" } })).status).toBe(206);

    const renamed = await api(alice, "PATCH", `/api/v1/transcriptions/${id}/rename`, { new_name: "  Library budget  " });
    expect(((await renamed.json()) as { display_name: string }).display_name).toBe("Library budget");
    const tooLong = await api(alice, "PATCH", `/api/v1/transcriptions/${id}/rename`, { new_name: "x".repeat(256) });
    expect(((await tooLong.json()) as { error: { message: string } }).error.message).toBe("Name is too long");
    const found = (await (await api(alice, "GET", "/api/v1/transcriptions?q=budget")).json()) as { total_count: number };
    expect(found.total_count).toBe(1);

    for (const [method, url, body] of [
      ["GET", `/api/v1/transcriptions/${id}`, undefined],
      ["GET", `/api/v1/transcriptions/${id}/audio-url`, undefined],
      ["PATCH", `/api/v1/transcriptions/${id}/rename`, { new_name: "mine" }],
      ["POST", `/api/v1/transcriptions/${id}/retry`, {}],
      ["DELETE", `/api/v1/transcriptions/${id}`, undefined],
    ] as const) {
      const response = await api(bob, method, url, body);
      expect(response.status, `${method} ${url}`).toBe(404);
    }

    expect((await api(alice, "DELETE", `/api/v1/transcriptions/${id}`)).status).toBe(204);
    expect((await api(alice, "GET", `/api/v1/transcriptions/${id}`)).status).toBe(404);
  });

  it("identifies speakers, renames one (clear 400s, 404 for others), re-runs diarization alone", { timeout: 600_000 }, async () => {
    const conversation = buildConversation({ lines: DIALOGUE.slice(0, 4), dir });
    const fileId = await upload(alice, conversation.path, conversation.duration);
    const badCount = await api(alice, "POST", "/api/v1/transcriptions", { file_id: fileId, settings: { model: "whisper-tiny.en", language: "en", diarize: true, max_speakers: 0 } });
    expect(badCount.status).toBe(400);
    expect(((await badCount.json()) as { error: { message: string } }).error.message).toBe("Maximum number of speakers must be a whole number from 1 to 20");
    const started = await api(alice, "POST", "/api/v1/transcriptions", { file_id: fileId, settings: { model: "whisper-tiny.en", language: "en", diarize: true, timestamp_granularities: ["segment", "word"] } });
    expect(started.status).toBe(200);
    const { transcription_id: id } = (await started.json()) as { transcription_id: string };
    type Detail = {
      status: string;
      config: { diarize: boolean };
      result: {
        id: string;
        text: string;
        speakers: Array<{ id: string; name: string }>;
        segments: Array<{ speaker?: string; words?: Array<{ speaker?: string }> }>;
        speaker_turns: Array<{ start: number; end: number; speaker: string }>;
      };
    };
    const detail = async () => (await (await api(alice, "GET", `/api/v1/transcriptions/${id}`)).json()) as Detail;
    const done = await waitFor(async () => {
      const d = await detail();
      return d.status === "completed" || d.status === "failed" ? d : undefined;
    }, "the diarized transcription", 400_000);
    expect(done.status).toBe("completed");
    expect(done.config.diarize).toBe(true);
    expect(done.result.speakers).toEqual([
      { id: "S1", name: "S1" },
      { id: "S2", name: "S2" },
    ]);
    expect(done.result.segments.every((s) => s.speaker && s.words!.every((w) => w.speaker === s.speaker))).toBe(true);
    // The diarizer's own turns, in time order, under the same ids.
    expect(new Set(done.result.speaker_turns.map((t) => t.speaker))).toEqual(new Set(["S1", "S2"]));
    // In time order; two turns overlap only where two people talk at once (decision 0020, revision 4).
    expect(done.result.speaker_turns.every((t, i, all) => t.end > t.start && (i === 0 || t.start >= all[i - 1]!.start))).toBe(true);

    const rename = (cookie: string, speaker: string, body: unknown) => api(cookie, "PATCH", `/api/v1/transcriptions/${id}/speakers/${speaker}`, body);
    const ok = await rename(alice, "S1", { name: "  Alice  " });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ speakers: [{ id: "S1", name: "Alice" }, { id: "S2", name: "S2" }] });
    const empty = await rename(alice, "S1", { name: "   " });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toBe("Speaker name cannot be empty");
    const long = await rename(alice, "S1", { name: "y".repeat(81) });
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { message: string } }).error.message).toBe("Speaker name is too long (max 80 characters)");
    expect((await rename(alice, "S1", {})).status).toBe(400);
    expect((await rename(alice, "S7", { name: "Nobody" })).status).toBe(404);
    expect((await rename(bob, "S1", { name: "Mallory" })).status).toBe(404);
    expect((await api(bob, "POST", `/api/v1/transcriptions/${id}/diarize`, {})).status).toBe(404);
    expect((await detail()).result.speakers[0]).toEqual({ id: "S1", name: "Alice" });

    const again = await api(alice, "POST", `/api/v1/transcriptions/${id}/diarize`, { max_speakers: 1 });
    expect(again.status).toBe(200);
    const rediarized = await waitFor(async () => {
      const d = await detail();
      return d.status === "completed" && d.result.id !== done.result.id ? d : undefined;
    }, "diarization alone", 300_000);
    expect(rediarized.result.text).toBe(done.result.text);
    expect(rediarized.result.speakers).toEqual([{ id: "S1", name: "S1" }]);
  });
});
