import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import WebSocket from "ws";

/** Clients of the live WebSockets for the tests: every message kept, waits on them. */
export const FRAME = 3_200; // 100 ms at 16 kHz s16le

export interface Client {
  ws: WebSocket;
  messages: Array<Record<string, any>>;
  closed: Promise<{ code: number; reason: string }>;
  waitFor(predicate: (m: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
}

export function open(url: string, headers: Record<string, string>): Promise<Client> {
  const ws = new WebSocket(url, { headers });
  const messages: Array<Record<string, any>> = [];
  const listeners = new Set<() => void>();
  ws.on("message", (data) => {
    messages.push(JSON.parse(String(data)) as Record<string, any>);
    for (const l of listeners) l();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: String(reason) })));
  const client: Client = {
    ws,
    messages,
    closed,
    waitFor: (predicate, timeoutMs = 120_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = messages.find(predicate);
          if (found) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out; got ${JSON.stringify(messages.map((m) => m.type))}`));
        }, timeoutMs);
        listeners.add(check);
        void closed.then(() => setTimeout(check, 0));
        check();
      }),
  };
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(client));
    ws.once("unexpected-response", (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })));
    ws.once("error", reject);
  });
}

export function pcmOf(wav: string): Buffer {
  const data = readFileSync(wav);
  return data.subarray(data.indexOf("data", 12, "ascii") + 8);
}

/** Sends PCM in frames at real time (as a microphone would). */
export async function play(ws: WebSocket, pcm: Buffer, bytesPerSecond = 32_000, frame = FRAME, send = (chunk: Buffer) => ws.send(chunk)) {
  const started = performance.now();
  for (let at = 0; at < pcm.length && ws.readyState === ws.OPEN; at += frame) {
    send(pcm.subarray(at, at + frame));
    await sleep(Math.max(0, started + ((at + frame) / bytesPerSecond) * 1000 - performance.now()));
  }
}


/** Cuts the TCP connection under the WebSocket, as a lost network does (no close frame). */
export const dropConnection = (ws: WebSocket) => (ws as unknown as { _socket: { destroy(): void } })._socket.destroy();

/** The settled words of a client's `words` messages, as one text. */
export const liveWords = (messages: Array<Record<string, any>>) =>
  messages.flatMap((m) => (m.type === "words" ? m.settled.map((w: { text: string }) => w.text) : [])).join("");

/** The PCM of the recordings stored under `storageDir` that hold `bytes` of audio (a WAV found by its size), newest last. */
export function storedRecordings(storageDir: string, bytes: number): Buffer[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      const info = statSync(file);
      if (info.isDirectory()) walk(file);
      else if (info.size === 44 + bytes && readFileSync(file).subarray(0, 4).toString("ascii") === "RIFF") found.push(file);
    }
  };
  walk(storageDir);
  return found.map(pcmOf);
}

/**
 * After a gap: resumes the session on `origin` (any replica), checks what it says was stored
 * (everything acknowledged, never more than was sent), sends the backlog from that offset at
 * once and the rest of `speech` at real time, stops, and waits for the saved session.
 */
export async function resumeAndFinish(options: { origin: string; cookie: string; sessionId: string; speech: Buffer; sentBefore: number; gapBytes: number }) {
  const { origin, sessionId, speech, sentBefore } = options;
  const resumed = await open(`${origin.replace(/^http/, "ws")}/api/v1/live?resume=${sessionId}`, { cookie: options.cookie, origin });
  const ready = await resumed.waitFor((m) => m.type === "ready");
  expect(ready).toMatchObject({ session_id: sessionId, resumed: true });
  expect(ready.audio_bytes % 2).toBe(0);
  expect(ready.audio_bytes).toBeGreaterThan(0);
  expect(ready.audio_bytes).toBeLessThanOrEqual(sentBefore);
  const backlogEnd = sentBefore + options.gapBytes;
  for (let at = ready.audio_bytes; at < backlogEnd; at += FRAME) resumed.ws.send(speech.subarray(at, Math.min(at + FRAME, backlogEnd)));
  await play(resumed.ws, speech.subarray(backlogEnd));
  resumed.ws.send(JSON.stringify({ type: "stop" }));
  const stopped = await resumed.waitFor((m) => m.type === "stopped", 300_000);
  expect((await resumed.closed).code).toBe(1000);
  return { resumed, stopped };
}
