import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineUnavailable, synthesize, wordErrorRate } from "../../../transcription/test/helpers.js";
import { dropConnection, FRAME, liveWords, open, pcmOf, play, resumeAndFinish, storedRecordings } from "./live-helpers.js";
import { type DeveloperStack, startDeveloperStack } from "./stack.js";

/**
 * A live session outlives its connection (decision 0037): a dropped TCP connection and a
 * restarted BFF are resumed by id, the client sending its audio from the offset the BFF
 * acknowledged; the stored recording is the speech byte for byte (no hole, no duplicate),
 * and the settled text holds words from both sides of the gap. A client that never comes
 * back leaves its settled text in the saved transcription until the batch pass replaces it.
 * Real engine, real services, real sockets.
 */
const SCRIPT =
  "The committee met on Tuesday morning to review the budget for the new library. " +
  "Several members asked whether the building could open before the end of the summer.";
const BYTES_PER_SECOND = 32_000;

describe.skipIf(engineUnavailable)("live sessions resumed after a dropped connection or a BFF restart", () => {
  let stack: DeveloperStack;
  let cookie: string;
  let speech: Buffer;

  const api = async (origin: string, url: string) => (await (await fetch(`${origin}${url}`, { headers: { cookie } })).json()) as Record<string, any>;

  async function finished(id: string): Promise<Record<string, any>> {
    for (let i = 0; i < 600; i++) {
      const body = await api(stack.origin, `/api/v1/transcriptions/${id}`);
      if (body.status === "completed" || body.status === "failed") return body;
      await sleep(500);
    }
    throw new Error("the batch pass did not finish");
  }

  /** The recording media stored for the session: its PCM, found by its size among the stored objects. */
  function storedPcm(bytes: number): Buffer {
    const found = storedRecordings(stack.media.storageDir, bytes);
    expect(found.length).toBeGreaterThan(0);
    return found.at(-1)!;
  }

  /** The part a client sends before its connection goes (whole frames), and what its microphone captures during a gap. */
  const cut = () => Math.floor((speech.length * 0.45) / FRAME) * FRAME;

  beforeAll(async () => {
    stack = await startDeveloperStack({ live: { slots: 1 } });
    cookie = await stack.signIn("resume@example.com");
    speech = pcmOf((await synthesize(SCRIPT)).path);
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
  });


  it("resume names no open session of the caller's: an unknown id and another user's session are closed 4404", { timeout: 300_000 }, async () => {
    const ws = stack.origin.replace(/^http/, "ws");
    const unknown = await open(`${ws}/api/v1/live?resume=${randomUUID()}`, { cookie, origin: stack.origin });
    expect((await unknown.closed).code).toBe(4404);
    const owner = await open(`${ws}/api/v1/live?language=en`, { cookie, origin: stack.origin });
    const ready = await owner.waitFor((m) => m.type === "ready");
    const intruder = await open(`${ws}/api/v1/live?resume=${ready.session_id}`, { cookie: await stack.signIn("intruder@example.com"), origin: stack.origin });
    expect((await intruder.closed).code).toBe(4404);
    // The owner's session went on untouched.
    owner.ws.send(JSON.stringify({ type: "stop" }));
    await owner.waitFor((m) => m.type === "stopped", 120_000);
    expect((await owner.closed).code).toBe(1000);
  });

  it("a dropped TCP connection: the client resumes the session and the recording has no hole or duplicate", { timeout: 600_000 }, async () => {
    const ws = stack.origin.replace(/^http/, "ws");
    const first = await open(`${ws}/api/v1/live?language=en&name=Dropped`, { cookie, origin: stack.origin });
    const ready = await first.waitFor((m) => m.type === "ready");
    const sent = cut();
    await play(first.ws, speech.subarray(0, sent));
    await first.waitFor((m) => m.type === "ack");
    dropConnection(first.ws);
    await first.closed;
    // Two seconds without a network: the microphone goes on, the page keeps the frames.
    await sleep(2_000);
    const { resumed, stopped } = await resumeAndFinish({ origin: stack.origin, cookie, sessionId: ready.session_id, speech, sentBefore: sent, gapBytes: 2 * BYTES_PER_SECOND });

    expect(stopped.audio_seconds * BYTES_PER_SECOND).toBe(speech.length);
    const live = liveWords([...first.messages, ...resumed.messages]).toLowerCase();
    expect(live).toContain("committee");
    expect(live).toContain("summer");
    expect(wordErrorRate(SCRIPT, live)).toBeLessThanOrEqual(0.35);

    const saved = await api(stack.origin, `/api/v1/transcriptions/${stopped.transcription_id}`);
    expect(saved.result).toBeNull();
    expect(saved.live_text.toLowerCase()).toContain("committee");
    expect(storedPcm(speech.length).equals(speech)).toBe(true);
    const done = await finished(stopped.transcription_id);
    expect(done.status).toBe("completed");
    expect(done.live_text).toBeUndefined();
    expect(wordErrorRate(SCRIPT, done.result.text)).toBeLessThanOrEqual(0.2);
  });

  it("a BFF restarted mid-session: the client is told to reconnect (1012) and goes on with the next BFF process", { timeout: 600_000 }, async () => {
    const before = await stack.bffInstance({});
    const first = await open(`${before.origin.replace(/^http/, "ws")}/api/v1/live?language=en&name=Restarted`, { cookie, origin: before.origin });
    const ready = await first.waitFor((m) => m.type === "ready");
    const sent = cut();
    await play(first.ws, speech.subarray(0, sent));
    await before.close();
    expect((await first.closed).code).toBe(1012);
    const after = await stack.bffInstance({});
    const { resumed, stopped } = await resumeAndFinish({ origin: after.origin, cookie, sessionId: ready.session_id, speech, sentBefore: sent, gapBytes: BYTES_PER_SECOND });

    expect(stopped.audio_seconds * BYTES_PER_SECOND).toBe(speech.length);
    const live = liveWords([...first.messages, ...resumed.messages]).toLowerCase();
    expect(live).toContain("committee");
    expect(live).toContain("summer");
    expect(storedPcm(speech.length).equals(speech)).toBe(true);
    const done = await finished(stopped.transcription_id);
    expect(done.status).toBe("completed");
    expect(wordErrorRate(SCRIPT, done.result.text)).toBeLessThanOrEqual(0.2);
    await after.close();
  });

  it("a closed tab that never comes back: the session is saved with its settled text, which the batch pass then replaces", { timeout: 600_000 }, async () => {
    const bff = await stack.bffInstance({ LIVE_RESUME_SECONDS: "2" });
    const client = await open(`${bff.origin.replace(/^http/, "ws")}/api/v1/live?language=en&name=Closed%20tab`, { cookie, origin: bff.origin });
    await client.waitFor((m) => m.type === "ready");
    await play(client.ws, speech.subarray(0, cut()));
    await client.waitFor(() => liveWords(client.messages).toLowerCase().includes("committee"), 120_000);
    client.ws.terminate();
    let saved: Record<string, any> | undefined;
    for (let i = 0; i < 240 && !saved; i++) {
      const list = await api(stack.origin, "/api/v1/transcriptions");
      const item = (list.items ?? list.transcriptions ?? list.data ?? []).find((t: { display_name: string }) => t.display_name.startsWith("Closed tab"));
      if (item) saved = await api(stack.origin, `/api/v1/transcriptions/${item.id}`);
      else await sleep(500);
    }
    expect(saved).toBeDefined();
    expect(saved!.result).toBeNull();
    expect(saved!.live_text.toLowerCase()).toContain("committee");
    const done = await finished(saved!.id);
    expect(done.status).toBe("completed");
    expect(done.live_text).toBeUndefined();
    expect(done.result.text.toLowerCase()).toContain("committee");
    await bff.close();
  });
});
