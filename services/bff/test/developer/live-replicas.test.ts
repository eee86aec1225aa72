import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineUnavailable, synthesize, wordErrorRate } from "../../../transcription/test/helpers.js";
import { type Client, dropConnection, FRAME, liveWords, open, pcmOf, play, resumeAndFinish, storedRecordings } from "./live-helpers.js";
import { type DeveloperStack, startDeveloperStack } from "./stack.js";

/**
 * Live sessions across BFF replicas (decision 0040): BFF processes of their own (src/main.ts)
 * beside each other over the same services and one shared LIVE_SPOOL_DIR. A connection that
 * dropped on one replica resumes on another, which takes the session over while the first
 * is still running (and lets go of it: one transcription, not two); a replica killed with
 * SIGKILL mid-session leaves its client a broken connection, from which it resumes on
 * another replica with nothing it was acknowledged lost; and a session whose replica died
 * and whose client never came back is taken up by a live replica and saved with its
 * settled text. Real engine, real services, real processes and sockets.
 */
const SCRIPT =
  "The committee met on Tuesday morning to review the budget for the new library. " +
  "Several members asked whether the building could open before the end of the summer.";
const BYTES_PER_SECOND = 32_000;

describe.skipIf(engineUnavailable)("live sessions across BFF replicas", () => {
  let stack: DeveloperStack;
  let cookie: string;
  let speech: Buffer;

  const api = async (url: string) => (await (await fetch(`${stack.origin}${url}`, { headers: { cookie } })).json()) as Record<string, any>;
  const named = async (prefix: string) =>
    ((await api("/api/v1/transcriptions?limit=100")).transcriptions as Array<Record<string, any>>).filter((t) => String(t.display_name).startsWith(prefix));
  const ws = (origin: string) => origin.replace(/^http/, "ws");
  /** Whole frames, a little under half the speech: "committee" is in it, "summer" is not. */
  const cut = () => Math.floor((speech.length * 0.45) / FRAME) * FRAME;

  beforeAll(async () => {
    stack = await startDeveloperStack({ live: { slots: 1 } });
    cookie = await stack.signIn("replicas@example.com");
    speech = pcmOf((await synthesize(SCRIPT)).path);
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
  });


  /** The saved session shows its live text until the full pass replaces it (which may already have happened). */
  function expectLiveTextOrDone(transcription: Record<string, any>, words: string[]) {
    // Replaced: the full pass's transcript is there instead, with speech in it.
    if (transcription.status === "completed" && transcription.live_text === undefined) {
      expect(String(transcription.result?.text ?? "").trim()).not.toBe("");
      return;
    }
    for (const word of words) expect(String(transcription.live_text).toLowerCase()).toContain(word);
  }

  /** The session's whole recording was stored once, byte for byte, and its live text spans both sides of the gap. */
  function expectWhole(stopped: Record<string, any>, clients: Client[]) {
    expect(stopped.audio_seconds * BYTES_PER_SECOND).toBe(speech.length);
    const live = liveWords(clients.flatMap((c) => c.messages)).toLowerCase();
    expect(live).toContain("committee");
    expect(live).toContain("summer");
    expect(wordErrorRate(SCRIPT, live)).toBeLessThanOrEqual(0.35);
    expect(storedRecordings(stack.media.storageDir, speech.length).some((pcm) => pcm.equals(speech))).toBe(true);
  }

  it("a connection dropped on replica A resumes on replica B while A runs on; A lets go and saves nothing", { timeout: 600_000 }, async () => {
    // A would save the session 8 s after the drop if it still held it.
    const [a, b] = await Promise.all([stack.bffProcess({ LIVE_RESUME_SECONDS: "8" }), stack.bffProcess({})]);
    try {
      const first = await open(`${ws(a.origin)}/api/v1/live?language=en&name=Two%20replicas`, { cookie, origin: a.origin });
      const ready = await first.waitFor((m) => m.type === "ready");
      const sent = cut();
      await play(first.ws, speech.subarray(0, sent));
      await first.waitFor((m) => m.type === "ack");
      const dropped = Date.now();
      dropConnection(first.ws);
      await first.closed;
      await sleep(2_000);
      const { resumed, stopped } = await resumeAndFinish({ origin: b.origin, cookie, sessionId: ready.session_id, speech, sentBefore: sent, gapBytes: 2 * BYTES_PER_SECOND });
      expectWhole(stopped, [first, resumed]);

      // Past A's resume wait: had A kept the session, it would have uploaded a second recording by now
      // (and, once media has checked it, made a second transcription).
      await sleep(Math.max(0, dropped + 14_000 - Date.now()));
      const files = (await api("/api/v1/files?limit=100")).files as Array<{ id: string; file_name: string }>;
      expect(files.filter((f) => f.file_name.startsWith("Two replicas")).map((f) => f.id)).toEqual([stopped.file_id]);
      expect((await named("Two replicas")).map((t) => t.id)).toEqual([stopped.transcription_id]);
      expectLiveTextOrDone(await api(`/api/v1/transcriptions/${stopped.transcription_id}`), ["committee", "summer"]);
      expect(a.child.exitCode).toBeNull(); // A ran on the whole time
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("the replica holding a session is killed: its client sees the connection break and resumes on another replica", { timeout: 600_000 }, async () => {
    const [a, b] = await Promise.all([stack.bffProcess({}), stack.bffProcess({})]);
    try {
      const first = await open(`${ws(a.origin)}/api/v1/live?language=en&name=Killed%20replica`, { cookie, origin: a.origin });
      const ready = await first.waitFor((m) => m.type === "ready");
      const sent = cut();
      await play(first.ws, speech.subarray(0, sent));
      await first.waitFor((m) => m.type === "ack");
      a.child.kill("SIGKILL");
      // No close frame from a dead process: 1006, which the page answers by resuming (not a final close).
      expect((await first.closed).code).toBe(1006);
      // The microphone went on while the page reconnected.
      const { resumed, stopped } = await resumeAndFinish({ origin: b.origin, cookie, sessionId: ready.session_id, speech, sentBefore: sent, gapBytes: BYTES_PER_SECOND });
      expectWhole(stopped, [first, resumed]);
      expect((await named("Killed replica")).map((t) => t.id)).toEqual([stopped.transcription_id]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("the replica holding a session is killed and the client never comes back: a live replica takes the session up and saves it", { timeout: 600_000 }, async () => {
    const a = await stack.bffProcess({});
    try {
      const client = await open(`${ws(a.origin)}/api/v1/live?language=en&name=Orphaned`, { cookie, origin: a.origin });
      await client.waitFor((m) => m.type === "ready");
      await play(client.ws, speech.subarray(0, cut()));
      await client.waitFor(() => liveWords(client.messages).toLowerCase().includes("committee"), 120_000);
      a.child.kill("SIGKILL");
      await client.closed;
      // The stack's own BFF sweeps the shared spool directory: once A's lease is stale it takes the
      // session up, waits LIVE_RESUME_SECONDS (30 s) for a client, then saves it.
      let saved: Array<Record<string, any>> = [];
      for (let i = 0; i < 240 && saved.length === 0; i++) {
        saved = await named("Orphaned");
        if (saved.length === 0) await sleep(500);
      }
      expect(saved).toHaveLength(1);
      const one = await api(`/api/v1/transcriptions/${saved[0]!.id}`);
      expectLiveTextOrDone(one, ["committee"]);
      expect(one.status).not.toBe("failed");
    } finally {
      await a.close();
    }
  });
});
