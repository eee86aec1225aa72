import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completedTranscription, wordTimedFixture } from "../../transcription/test/completed.js";
import { type EditorStack, startEditorStack } from "./editor-stack.js";

const CONTROL_MESSAGE = "Speaker name cannot contain line breaks, tabs or control characters";
// The audit's request: a blank line and a timing line inside the name, a cue of its own in every subtitle export.
const INJECTED = "X\n\n00:00:00.000 --> 00:09:00.000\nINJECTED CUE";

interface Detail {
  result: { revision: number; speakers: Array<{ id: string; name: string }>; segments: Array<{ id: number; text: string; speaker?: string }> };
}

/**
 * Speaker names, segment speaker labels and voice names with line breaks, control or
 * bidi-control characters are refused at the API and nothing changes: the real BFF, auth
 * (magic-link sessions) and transcription service on a real database, a diarized result
 * stored as the worker stores it.
 */
describe("names that would break exports are refused through the BFF", () => {
  let stack: EditorStack;
  let alice: string;
  let aliceId: string;

  beforeAll(async () => {
    stack = await startEditorStack("speaker-names");
    ({ cookie: alice, id: aliceId } = await stack.signIn("alice-speaker-names@example.com"));
  }, 120_000);

  afterAll(() => stack?.stop());

  const api: EditorStack["api"] = (...args) => stack.api(...args);
  const errorOf = async (response: Response) => ((await response.json()) as { error: { code: string; message: string; detail?: Record<string, unknown> } }).error;

  /** A completed, diarized transcript: segments alternate between S1 and S2. */
  async function diarized(): Promise<string> {
    const segments = wordTimedFixture.segments.map((s, i) => {
      const speaker = i % 2 === 0 ? "S1" : "S2";
      return { ...s, speaker, words: s.words.map((w) => ({ ...w, speaker })) };
    });
    return completedTranscription(stack.db, aliceId, { segments, speakers: [{ id: "S1", name: "S1" }, { id: "S2", name: "S2" }] });
  }

  it("PATCH …/speakers/S2 with a line break (or a control or bidi character) is a 400 and changes nothing", async () => {
    const id = await diarized();
    const detail = async () => (await (await api(alice, "GET", `/api/v1/transcriptions/${id}`)).json()) as Detail;
    const before = await detail();
    expect(before.result.speakers).toEqual([
      { id: "S1", name: "S1" },
      { id: "S2", name: "S2" },
    ]);

    const injected = await api(alice, "PATCH", `/api/v1/transcriptions/${id}/speakers/S2`, { name: INJECTED });
    expect(injected.status).toBe(400);
    expect(await errorOf(injected)).toMatchObject({ code: "invalid_argument", message: CONTROL_MESSAGE, detail: { field: "name", character: "U+000A" } });
    for (const name of ["Eve\r\nS9", "Eve\tAdams", "Eve\u0007", "Eve\u0085", "Eve \u202etxt.exe", "Eve\u2066"]) {
      const refused = await api(alice, "PATCH", `/api/v1/transcriptions/${id}/speakers/S2`, { name });
      expect(refused.status, JSON.stringify(name)).toBe(400);
      expect((await errorOf(refused)).message).toBe(CONTROL_MESSAGE);
    }
    expect(await detail()).toEqual(before);

    // An ordinary name still goes through; markup characters are the exporters' to escape.
    const ok = await api(alice, "PATCH", `/api/v1/transcriptions/${id}/speakers/S2`, { name: "  Eve <the PM> & co  " });
    expect(ok.status).toBe(200);
    expect((await detail()).result.speakers[1]).toEqual({ id: "S2", name: "Eve <the PM> & co" });
  });

  it("PUT …/result with a segment speaker label holding a line break is a 400 and makes no revision", async () => {
    const id = await diarized();
    const before = (await (await api(alice, "GET", `/api/v1/transcriptions/${id}`)).json()) as Detail;
    const segments = before.result.segments.map((s) => ({ id: s.id, text: s.text, speaker: s.speaker }));
    segments[1] = { ...segments[1]!, speaker: "<b>Eve</b>\n\nS9" };
    const refused = await api(alice, "PUT", `/api/v1/transcriptions/${id}/result`, { segments }, { "if-match": '"rev-1"' });
    expect(refused.status).toBe(400);
    expect(await errorOf(refused)).toMatchObject({ message: "Speaker cannot contain line breaks, tabs or control characters", detail: { field: "segments[1].speaker" } });
    const after = (await (await api(alice, "GET", `/api/v1/transcriptions/${id}`)).json()) as Detail;
    expect(after.result.revision).toBe(1);
    expect(after).toEqual(before);

    // Giving a segment to the other speaker (the editor's "Give to") is untouched by the rule.
    segments[1] = { ...segments[1]!, speaker: "S1" };
    const saved = await api(alice, "PUT", `/api/v1/transcriptions/${id}/result`, { segments }, { "if-match": '"rev-1"' });
    expect(saved.status).toBe(200);
  });

  it("PATCH /api/v1/voices/{id} with a control or bidi character is a 400 and keeps the name", async () => {
    expect((await api(alice, "PUT", "/api/v1/voices/settings", { enabled: true })).status).toBe(200);
    const voiceId = randomUUID();
    const embedding = Array.from({ length: 256 }, (_, i) => (i === 0 ? 1 : 0));
    await stack.db.insertInto("voices").values({ id: voiceId, user_id: aliceId, name: "Alex", embedding, samples: 1 }).execute();
    for (const name of ["Alex\r\nINJECTED", "Alex\u0007", "Alex \u202eevil", "Alex\u2069"]) {
      const refused = await api(alice, "PATCH", `/api/v1/voices/${voiceId}`, { name });
      expect(refused.status, JSON.stringify(name)).toBe(400);
      expect((await errorOf(refused)).message).toBe(CONTROL_MESSAGE);
    }
    const voices = (await (await api(alice, "GET", "/api/v1/voices")).json()) as { voices: Array<{ id: string; name: string }> };
    expect(voices.voices).toMatchObject([{ id: voiceId, name: "Alex" }]);
    const renamed = await api(alice, "PATCH", `/api/v1/voices/${voiceId}`, { name: " Alex Smith " });
    expect(renamed.status).toBe(200);
    expect(((await renamed.json()) as { name: string }).name).toBe("Alex Smith");
  });
});
