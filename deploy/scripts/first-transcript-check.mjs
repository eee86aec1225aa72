#!/usr/bin/env node
// Against a running `npm start`: signs in through the mail catcher (magic link), uploads a
// WAV, checks what health and the model list say while the engine prepares, starts a
// transcription with the default model, and requires `completed` with the script's words.
//
//   node deploy/scripts/first-transcript-check.mjs --base URL --mail URL --wav FILE --text "the script" [--speakers-wav FILE]
//
// With --speakers-wav (real speech of two or more people), that file is transcribed too with
// "Identify speakers": it must complete with at least two speakers, no speakers_note, the
// diarizer's turns in result.speaker_turns, and an RTTM export of them.
//
// Prints one line per step and, last, a JSON line {"transcriptSeconds": …} (seconds from
// this script's start to the completed transcript). No dependencies.
import { readFile } from "node:fs/promises";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const index = args.indexOf(`--${name}`);
  return index >= 0 ? args[index + 1] : fallback;
};
const base = option("base", "http://localhost:8080").replace(/\/$/, "");
const mailUrl = option("mail", "http://127.0.0.1:1080").replace(/\/$/, "");
const wav = option("wav");
const script = option("text");
const speakersWav = option("speakers-wav");
const timeoutMs = Number(option("timeout", "900000"));
const started = Date.now();

const jar = new Map();
const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
const remember = (response) => {
  for (const line of response.headers.getSetCookie()) {
    const [pair] = line.split(";");
    const eq = pair.indexOf("=");
    jar.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
  }
};
const say = (message) => console.log(`[first-run +${Math.round((Date.now() - started) / 1000)}s] ${message}`);
const fail = (message) => {
  console.log(`FAILED: ${message}`);
  process.exit(1);
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const api = async (method, path, body) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { cookie: cookie(), origin: base, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, body: json };
};
const words = (text) => text.toLowerCase().replace(/[^a-z0-9' ]+/g, " ").split(/\s+/).filter(Boolean);

async function main() {
  if (!wav || !script) fail("--wav and --text are required");
  // 1. sign in by e-mail link
  const email = `first-run-${Date.now()}@example.com`;
  const sent = await fetch(`${base}/auth/sign-in/magic-link`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: base },
    body: JSON.stringify({ email, callbackURL: "/dashboard" }),
  });
  if (sent.status !== 200) fail(`magic link: ${sent.status} ${await sent.text()}`);
  let mail;
  for (const deadline = Date.now() + 60_000; !mail && Date.now() < deadline; await sleep(250)) {
    const list = await fetch(`${mailUrl}/email`).then((r) => r.json()).catch(() => []);
    mail = list.find((m) => (m.to ?? []).some((t) => t.address === email));
  }
  if (!mail) fail("no sign-in mail in the mail catcher");
  const link = /(https?:\/\/\S+\/auth\/magic-link\/verify\?\S+)/.exec(mail.text ?? "")?.[1];
  if (!link) fail("the mail has no sign-in link");
  const landed = await fetch(link.replace(/^https?:\/\/[^/]+/, base), { redirect: "manual" });
  remember(landed);
  const me = await api("GET", "/api/v1/me");
  if (me.status !== 200) fail(`not signed in: ${me.status} ${JSON.stringify(me.body)}`);
  say(`signed in as ${email}`);

  // 2. what the product says about the local engine right now
  const health = await api("GET", "/api/v1/health");
  const worker = health.body.services?.find((s) => s.name === "transcription-worker");
  say(`health ${health.status} ${health.body.status}; worker ${worker?.status}${worker?.detail ? ` (${worker.detail})` : ""}`);
  const models = await api("GET", "/api/v1/models");
  const base_ = models.body.models?.find((m) => m.id === "whisper-base");
  say(`model whisper-base: available=${base_?.available}${base_?.reason ? ` (${base_.reason})` : ""}`);
  if (!base_?.available && !/^Preparing/.test(base_?.reason ?? "")) fail(`the default model is neither available nor preparing: ${base_?.reason}`);

  const fileId = await upload(wav, "first-run.wav");
  const detail = await transcribe(fileId, { language: "en" });
  const heard = new Set(words(detail.result.text));
  const expected = [...new Set(words(script))];
  const found = expected.filter((w) => heard.has(w));
  say(`transcript: "${detail.result.text.trim()}"`);
  if (found.length / expected.length < 0.8) fail(`only ${found.length} of ${expected.length} of the script's words were heard`);
  say(`${found.length} of ${expected.length} of the script's words heard`);
  const transcriptSeconds = (Date.now() - started) / 1000;
  if (speakersWav) await checkSpeakers(speakersWav);
  console.log(JSON.stringify({ transcriptSeconds, words: `${found.length}/${expected.length}` }));
}

/** A real multi-speaker recording transcribed with speakers: never a failed job, and the speakers found. */
async function checkSpeakers(file) {
  const fileId = await upload(file, "first-run-speakers.wav");
  const detail = await transcribe(fileId, { language: "en", diarize: true });
  const result = detail.result;
  if (result.speakers_note) fail(`the transcript has no speakers: ${result.speakers_note}`);
  if (result.speakers.length < 2) fail(`speakers found: ${result.speakers.length}, at least 2 spoke`);
  if (new Set(result.speaker_turns.map((t) => t.speaker)).size < 2) fail(`speaker_turns has fewer than 2 speakers: ${JSON.stringify(result.speaker_turns)}`);
  say(`speakers: ${result.speakers.map((s) => s.id).join(", ")}; ${result.speaker_turns.length} turns`);
  const exported = await api("POST", `/api/v1/transcriptions/${detail.id}/export`, { format: "rttm" });
  if (exported.status !== 200) fail(`rttm export: ${exported.status} ${JSON.stringify(exported.body)}`);
  const rttm = await fetch(exported.body.download_url.replace(/^https?:\/\/[^/]+/, base), { headers: { cookie: cookie() } }).then((r) => r.text());
  const lines = rttm.trim().split("\n").filter((line) => line.startsWith("SPEAKER "));
  if (lines.length !== result.speaker_turns.length) fail(`the RTTM export has ${lines.length} lines for ${result.speaker_turns.length} turns`);
  say(`rttm export: ${lines.length} SPEAKER lines`);
}

async function upload(file, name) {
  const bytes = await readFile(file);
  const seconds = (bytes.length - 44) / (bytes.readUInt32LE(28) || 1);
  const slot = await api("POST", "/api/v1/upload", { file_name: name, file_size: bytes.length, content_type: "audio/wav", duration: seconds });
  if (slot.status !== 200) fail(`upload: ${slot.status} ${JSON.stringify(slot.body)}`);
  const put = await fetch(slot.body.upload_url.replace(/^https?:\/\/[^/]+/, base), { method: "PUT", headers: { "content-type": "audio/wav", cookie: cookie(), origin: base }, body: bytes });
  if (put.status !== 200) fail(`PUT: ${put.status} ${await put.text()}`);
  say(`uploaded ${name}: ${bytes.length} bytes (${seconds.toFixed(1)} s of audio)`);
  return slot.body.file_id;
}

/** Transcribes with the default local model (no model named: the default is whisper-base); requires `completed`. */
async function transcribe(fileId, settings) {
  let created;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(1000)) {
    created = await api("POST", "/api/v1/transcriptions", { file_id: fileId, settings });
    // The file may still be processing (media); anything else is final.
    if (created.status !== 409 && created.status !== 400) break;
    if (!/process|upload/i.test(JSON.stringify(created.body))) break;
  }
  if (created.status !== 200) fail(`start: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.transcription_id;
  say(`transcription ${id} started`);
  let detail;
  let last = "";
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(2000)) {
    detail = (await api("GET", `/api/v1/transcriptions/${id}`)).body;
    if (detail.status !== last) say(`status ${detail.status}${detail.error ? `: ${detail.error}` : ""}`);
    last = detail.status;
    if (detail.status === "completed" || detail.status === "failed") break;
  }
  if (detail?.status !== "completed") fail(`transcription ended ${detail?.status}: ${detail?.error ?? ""}`);
  return detail;
}

main().catch((error) => fail(error?.stack ?? String(error)));
