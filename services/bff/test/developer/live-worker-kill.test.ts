import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineUnavailable, synthesize, wordErrorRate } from "../../../transcription/test/helpers.js";
import { FRAME, open, pcmOf, play } from "./live-helpers.js";
import { type DeveloperStack, startDeveloperStack } from "./stack.js";

/**
 * The live worker's whole process killed (SIGKILL) mid-session, not only its engine: the
 * client is told (1011), the session ends with the words settled so far kept in the saved
 * transcription, the audio heard is stored whole, and the batch pass gives the full
 * transcript (decisions 0030, 0037). The worker runs as `src/live-worker.ts` in its own
 * Node process; everything else is real too.
 */
const SCRIPT =
  "The committee met on Tuesday morning to review the budget for the new library. " +
  "Several members asked whether the building could open before the end of the summer.";

describe.skipIf(engineUnavailable)("the live worker process killed mid-session", () => {
  let stack: DeveloperStack;
  let cookie: string;
  let speech: Buffer;

  const api = async (url: string) => (await (await fetch(`${stack.origin}${url}`, { headers: { cookie } })).json()) as Record<string, any>;

  beforeAll(async () => {
    stack = await startDeveloperStack({ live: { slots: 1, process: true } });
    cookie = await stack.signIn("killed@example.com");
    speech = pcmOf((await synthesize(SCRIPT)).path);
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
  });

  it("SIGKILL: the client is told, the settled text and the audio are kept, the batch pass transcribes it all", { timeout: 600_000 }, async () => {
    const client = await open(`${stack.origin.replace(/^http/, "ws")}/api/v1/live?language=en&name=Killed`, { cookie, origin: stack.origin });
    await client.waitFor((m) => m.type === "ready");
    const sent = Math.floor((speech.length * 0.6) / FRAME) * FRAME;
    await play(client.ws, speech.subarray(0, sent));
    const settled = () =>
      client.messages
        .flatMap((m) => (m.type === "words" ? m.settled.map((w: { text: string }) => w.text) : []))
        .join("")
        .trim();
    await client.waitFor(() => settled().toLowerCase().includes("committee"), 120_000);
    const settledBeforeKill = settled();
    stack.liveProcess!.kill("SIGKILL");

    const error = await client.waitFor((m) => m.type === "error", 300_000);
    expect((await client.closed).code).toBe(1011);
    expect(error.code).toBe("failed");
    expect(error.transcription_id).toEqual(expect.any(String));
    expect(stack.liveProcess!.signalCode).toBe("SIGKILL");

    const saved = await api(`/api/v1/transcriptions/${error.transcription_id}`);
    // Read at once: the batch pass has barely started, and the live text stands in for it.
    expect(saved.result).toBeNull();
    expect(saved.live_text.startsWith(settledBeforeKill)).toBe(true);

    // The recording is the audio sent, whole: media stored it byte for byte.
    const stored: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const file = path.join(dir, name);
        if (statSync(file).isDirectory()) walk(file);
        else if (statSync(file).size === 44 + sent) stored.push(file);
      }
    };
    walk(stack.media.storageDir);
    expect(stored.length).toBeGreaterThan(0);
    expect(pcmOf(stored[0]!).equals(speech.subarray(0, sent))).toBe(true);

    let done = saved;
    for (let i = 0; i < 600 && done.status !== "completed" && done.status !== "failed"; i++) {
      await sleep(500);
      done = await api(`/api/v1/transcriptions/${error.transcription_id}`);
    }
    expect(done.status).toBe("completed");
    expect(done.live_text).toBeUndefined();
    const heard = SCRIPT.split(" ").slice(0, Math.floor(SCRIPT.split(" ").length * 0.45)).join(" ");
    expect(done.result.text.toLowerCase()).toContain("committee");
    expect(wordErrorRate(heard, done.result.text.split(" ").slice(0, heard.split(" ").length).join(" "))).toBeLessThanOrEqual(0.25);
  });
});
