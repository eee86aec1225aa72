import { execFileSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { ffmpegPath } from "@transcribe/media/testing/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FRAME, open, pcmOf, play } from "./live-helpers.js";
import { engineUnavailable, synthesize, wordErrorRate } from "../../../transcription/test/helpers.js";
import { type DeveloperStack, startDeveloperStack } from "./stack.js";

/**
 * Live transcription through the BFF with nothing of ours replaced: the WebSocket routes,
 * the live worker's gRPC stream with the real streaming engine, and the saved recording
 * going through media, the transcription worker (batch pass) and the export service.
 */
const SCRIPT =
  "The committee met on Tuesday morning to review the budget for the new library. " +
  "Several members asked whether the building could open before the end of the summer.";

describe.skipIf(engineUnavailable)("live transcription over the BFF's WebSockets (real engine, real services)", () => {
  let stack: DeveloperStack;
  let cookie: string;
  let key: string;
  let speech: Buffer;
  let speech24k: Buffer;
  let ws: string;

  const api = (headers: Record<string, string>, method: string, url: string, body?: unknown) =>
    fetch(`${stack.origin}${url}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json", origin: stack.origin }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  async function finished(id: string): Promise<Record<string, any>> {
    for (let i = 0; i < 600; i++) {
      const body = (await (await api({ cookie }, "GET", `/api/v1/transcriptions/${id}`)).json()) as Record<string, any>;
      if (body.status === "completed" || body.status === "failed") return body;
      await sleep(500);
    }
    throw new Error("the batch pass did not finish");
  }

  beforeAll(async () => {
    stack = await startDeveloperStack({ live: { slots: 1 } });
    ws = stack.origin.replace(/^http/, "ws");
    cookie = await stack.signIn("live@example.com");
    key = ((await (await api({ cookie, origin: stack.origin }, "POST", "/api/v1/api-keys", { name: "live" })).json()) as { key: string }).key;
    const wav = (await synthesize(SCRIPT)).path;
    speech = pcmOf(wav);
    speech24k = execFileSync(ffmpegPath, ["-nostdin", "-v", "error", "-i", wav, "-ar", "24000", "-ac", "1", "-f", "s16le", "-"], { maxBuffer: 1 << 26 });
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
  });

  it("page path: words while speaking, stop → a transcription whose batch pass and export hold the words", { timeout: 600_000 }, async () => {
    const client = await open(`${ws}/api/v1/live?model=whisper-base&language=en&name=Standup`, { cookie, origin: stack.origin });
    await client.waitFor((m) => m.type === "ready");
    await play(client.ws, speech);
    client.ws.send(JSON.stringify({ type: "stop" }));
    const stopped = await client.waitFor((m) => m.type === "stopped", 300_000);
    expect((await client.closed).code).toBe(1000);
    const words = client.messages.filter((m) => m.type === "words");
    expect(words.some((m) => m.partial.length > 0)).toBe(true);
    const live = words.flatMap((m) => m.settled.map((w: { text: string }) => w.text)).join("");
    expect(wordErrorRate(SCRIPT, live)).toBeLessThanOrEqual(0.2);
    expect(stopped.reason).toBe("stop");
    expect(stopped.transcription_id).toEqual(expect.any(String));

    const done = await finished(stopped.transcription_id);
    expect(done.status).toBe("completed");
    expect(done.display_name).toMatch(/Standup/);
    const list = (await (await api({ cookie }, "GET", "/api/v1/transcriptions")).json()) as { items?: Array<{ id: string }>; transcriptions?: Array<{ id: string }> };
    expect(JSON.stringify(list)).toContain(stopped.transcription_id);
    const exported = await api({ cookie }, "POST", `/api/v1/transcriptions/${stopped.transcription_id}/export`, { format: "txt" });
    expect(exported.status).toBeLessThan(300);
    const { download_url } = (await exported.json()) as { download_url: string };
    const text = await (await fetch(new URL(new URL(download_url).pathname + new URL(download_url).search, stack.origin), { headers: { cookie } })).text();
    expect(wordErrorRate(SCRIPT, text)).toBeLessThanOrEqual(0.2);
  });

  it("refuses a cookie from another origin at the upgrade (403), like every state-changing route", async () => {
    const refused = await open(`${ws}/api/v1/live`, { cookie, origin: "https://evil.example" }).catch((e: { status?: number }) => e);
    expect((refused as { status?: number }).status).toBe(403);
    const anonymous = await open(`${ws}/api/v1/live`, {}).catch((e: { status?: number }) => e);
    expect((anonymous as { status?: number }).status).toBe(401);
  });

  it("closes with 4400 on a garbage frame, and with 4429 at once when every slot is busy", { timeout: 300_000 }, async () => {
    const holder = await open(`${ws}/api/v1/live?language=en`, { authorization: `Bearer ${key}` });
    await holder.waitFor((m) => m.type === "ready");
    const refusedAt = performance.now();
    const second = await open(`${ws}/api/v1/live?language=en`, { authorization: `Bearer ${key}` });
    const closed = await second.closed;
    expect(closed.code).toBe(4429);
    expect(performance.now() - refusedAt).toBeLessThan(10_000);
    expect(second.messages.at(-1)).toMatchObject({ type: "error", code: "refused" });

    holder.ws.send(Buffer.from([1, 2, 3]));
    const garbage = await holder.closed;
    expect(garbage.code).toBe(4400);
    expect(garbage.reason).toMatch(/16-bit PCM/);
    for (let i = 0; i < 100 && stack.live!.slots.inUse > 0; i++) await sleep(100);
    expect(stack.live!.slots.inUse).toBe(0);
  });

  it("the live worker killed mid-session: the client is told (1011) and the audio so far is transcribed in batch", { timeout: 600_000 }, async () => {
    const client = await open(`${ws}/api/v1/live?language=en`, { cookie, origin: stack.origin });
    await client.waitFor((m) => m.type === "ready");
    await play(client.ws, speech.subarray(0, Math.floor(speech.length / 2 / FRAME) * FRAME));
    for (const engine of stack.live!.engines) engine.kill();
    const error = await client.waitFor((m) => m.type === "error", 300_000);
    expect((await client.closed).code).toBe(1011);
    expect(error.code).toBe("failed");
    expect(error.transcription_id).toEqual(expect.any(String));
    const done = await finished(error.transcription_id);
    expect(done.status).toBe("completed");
    expect(JSON.stringify(done).toLowerCase()).toContain("committee");
  });

  it("/v1/realtime speaks OpenAI's transcription session events with an API key: deltas, then completed", { timeout: 600_000 }, async () => {
    const client = await open(`${ws}/v1/realtime?intent=transcription`, { authorization: `Bearer ${key}`, "openai-beta": "realtime=v1" });
    await client.waitFor((m) => m.type === "transcription_session.created");
    client.ws.send(
      JSON.stringify({
        type: "transcription_session.update",
        session: { input_audio_format: "pcm16", input_audio_transcription: { model: "whisper-base", language: "en" }, turn_detection: null },
      }),
    );
    await client.waitFor((m) => m.type === "transcription_session.updated");
    await play(client.ws, speech24k, 48_000, 4_800, (chunk) =>
      client.ws.send(JSON.stringify({ type: "input_audio_buffer.append", audio: chunk.toString("base64") })),
    );
    client.ws.send(JSON.stringify({ type: "input_audio_buffer.commit" }));
    const committed = await client.waitFor((m) => m.type === "input_audio_buffer.committed");
    const completed = await client.waitFor((m) => m.type === "conversation.item.input_audio_transcription.completed", 300_000);
    expect(completed.item_id).toBe(committed.item_id);
    const deltas = client.messages.filter((m) => m.type === "conversation.item.input_audio_transcription.delta");
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.every((d) => d.item_id === committed.item_id)).toBe(true);
    expect(deltas.map((d) => d.delta).join("").trim()).toBe(completed.transcript);
    expect(wordErrorRate(SCRIPT, completed.transcript)).toBeLessThanOrEqual(0.25);

    client.ws.send("not json");
    expect((await client.closed).code).toBe(4400);
    expect(client.messages.some((m) => m.type === "error" && m.error.code === "invalid_event")).toBe(true);
  });
});
