import { randomUUID } from "node:crypto";
import { writeFile, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CloudProviderName } from "../src/domain/models.js";
import { assignSpeakers } from "../src/domain/speakers.js";
import { diarizeFile, SPEAKER_WHEEL } from "../src/engines/local/diarizer.js";
import { LocalTranscriber } from "../src/engines/local/local-transcriber.js";
import { logger, whisperModelsDir, whisperPython } from "./helpers.js";

/**
 * Local HTTP servers that implement the documented request and response shapes of
 * Groq's audio API (OpenAI-compatible multipart, verbose_json, errors with
 * `{error: {message, type, code}}`, 429 with retry-after) and ElevenLabs' speech-to-text
 * (multipart, `xi-api-key`, words and spacings, errors with `{detail: {status,
 * message}}`). Their transcripts are real: each uploaded file is transcribed by the
 * local Whisper engine, so a test of a cloud adapter still checks words against a script.
 */

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  fields: Record<string, string | string[]>;
  file?: { name: string; type: string; size: number; magic: string };
}

export interface ProviderServer {
  url: string;
  requests: RecordedRequest[];
  /** Answer the next n requests with 429 and this retry-after (seconds). */
  rateLimit(n: number, retryAfterSeconds: number): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function parseMultipart(req: IncomingMessage, body: Buffer) {
  const form = await new Request("http://local/", { method: "POST", headers: req.headers as Record<string, string>, body }).formData();
  const fields: Record<string, string | string[]> = {};
  let file: { name: string; type: string; bytes: Buffer } | undefined;
  for (const [key, value] of form.entries()) {
    if (typeof value === "string") {
      const existing = fields[key];
      fields[key] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
    } else {
      file = { name: value.name, type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
    }
  }
  return { fields, file };
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

async function startServer(handler: (req: IncomingMessage, res: ServerResponse, state: { requests: RecordedRequest[]; limited: { n: number; retryAfter: number } }) => Promise<void>): Promise<ProviderServer> {
  const state = { requests: [] as RecordedRequest[], limited: { n: 0, retryAfter: 1 } };
  const server: Server = createServer((req, res) => {
    handler(req, res, state).catch((error: unknown) => json(res, 500, { error: { message: String(error), type: "server_error" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: state.requests,
    rateLimit(n, retryAfterSeconds) {
      state.limited = { n, retryAfter: retryAfterSeconds };
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The real engine behind both stand-ins. */
function engine(): LocalTranscriber {
  return new LocalTranscriber({
    python: whisperPython,
    locations: { explicit: {}, modelsDir: whisperModelsDir, dataModelsDir: "/nonexistent/models", allowDownload: false },
    computeType: "int8",
    threads: 2,
    beamSize: 1,
    chunkSeconds: 600,
    overlapSeconds: 5,
    chunkTimeFactor: 30,
    logger,
  });
}

async function transcribeUpload(transcriber: LocalTranscriber, bytes: Buffer, model: string, language: string | undefined, task: "transcribe" | "translate") {
  const file = path.join(tmpdir(), `provider-${randomUUID()}.flac`);
  await writeFile(file, bytes);
  try {
    return await transcriber.transcribe({
      audioPath: file,
      durationSeconds: 0.01,
      engineModel: model,
      settings: { language: language ?? "auto", translateToEn: task === "translate", temperature: 0 },
      signal: new AbortController().signal,
    });
  } finally {
    await rm(file, { force: true });
  }
}

export async function startGroqServer(apiKey: string): Promise<ProviderServer & { close(): Promise<void> }> {
  const transcriber = engine();
  const server = await startServer(async (req, res, state) => {
    const route = req.url ?? "";
    if (req.method !== "POST" || !/^\/openai\/v1\/audio\/(transcriptions|translations)$/.test(route)) {
      return json(res, 404, { error: { message: "Unknown request URL", type: "invalid_request_error", code: "unknown_url" } });
    }
    const body = await readBody(req);
    const { fields, file } = await parseMultipart(req, body);
    state.requests.push({
      path: route,
      headers: req.headers,
      fields,
      ...(file ? { file: { name: file.name, type: file.type, size: file.bytes.length, magic: file.bytes.subarray(0, 4).toString("latin1") } } : {}),
    });
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return json(res, 401, { error: { message: "Invalid API Key", type: "invalid_request_error", code: "invalid_api_key" } });
    }
    if (state.limited.n > 0) {
      state.limited.n--;
      return json(
        res,
        429,
        { error: { message: "Rate limit reached for model on audio seconds per hour (ASPH). Please try again in 1s.", type: "seconds", code: "rate_limit_exceeded" } },
        { "retry-after": String(state.limited.retryAfter) },
      );
    }
    if (!file) return json(res, 400, { error: { message: "either file or url must be provided", type: "invalid_request_error" } });
    if (file.bytes.length > 25 * 1024 * 1024) return json(res, 413, { error: { message: "Request Entity Too Large", type: "invalid_request_error" } });
    const model = String(fields.model ?? "");
    const translate = route.endsWith("translations");
    if (!["whisper-large-v3", "whisper-large-v3-turbo"].includes(model)) {
      return json(res, 404, { error: { message: `The model \`${model}\` does not exist or you do not have access to it.`, type: "invalid_request_error", code: "model_not_found" } });
    }
    if (translate && model !== "whisper-large-v3") {
      return json(res, 400, { error: { message: `model \`${model}\` does not support translations`, type: "invalid_request_error" } });
    }
    // The real engine stands in for large-v3: tiny.en for English, base otherwise.
    const language = typeof fields.language === "string" ? fields.language : undefined;
    const local = await transcribeUpload(transcriber, file.bytes, translate || language !== "en" ? "base" : "tiny.en", language, translate ? "translate" : "transcribe");
    const granularities = ([] as string[]).concat(fields["timestamp_granularities[]"] ?? []);
    const names: Record<string, string> = { en: "English", es: "Spanish", de: "German" };
    return json(res, 200, {
      task: translate ? "translate" : "transcribe",
      language: translate ? "English" : (names[local.sourceLanguage] ?? local.sourceLanguage),
      duration: local.duration,
      text: local.text,
      ...(granularities.length === 0 || granularities.includes("segment")
        ? {
            segments: local.segments.map((s, id) => ({
              id, seek: 0, start: s.start, end: s.end, text: ` ${s.text}`, tokens: [], temperature: 0,
              avg_logprob: s.avgLogprob ?? -0.2, compression_ratio: s.compressionRatio ?? 1.3, no_speech_prob: s.noSpeechProb ?? 0.01,
            })),
          }
        : {}),
      ...(granularities.includes("word") && !translate
        ? { words: local.segments.flatMap((s) => s.words.map((w) => ({ word: w.word.trim(), start: w.start, end: w.end }))) }
        : {}),
      x_groq: { id: `req_${randomUUID()}` },
    });
  });
  return { ...server, close: async () => { await server.close(); await transcriber.close(); } };
}

export async function startElevenLabsServer(apiKey: string): Promise<ProviderServer> {
  const transcriber = engine();
  const server = await startServer(async (req, res, state) => {
    if (req.method !== "POST" || req.url !== "/v1/speech-to-text") return json(res, 404, { detail: "Not Found" });
    const body = await readBody(req);
    const { fields, file } = await parseMultipart(req, body);
    state.requests.push({
      path: req.url,
      headers: req.headers,
      fields,
      ...(file ? { file: { name: file.name, type: file.type, size: file.bytes.length, magic: file.bytes.subarray(0, 4).toString("latin1") } } : {}),
    });
    if (req.headers["xi-api-key"] !== apiKey) {
      return json(res, 401, { detail: { status: "invalid_api_key", message: "Invalid API key" } });
    }
    if (state.limited.n > 0) {
      state.limited.n--;
      return json(res, 429, { detail: { status: "too_many_concurrent_requests", message: "Too many concurrent requests." } }, { "retry-after": String(state.limited.retryAfter) });
    }
    if (fields.model_id !== "scribe_v2") {
      return json(res, 400, { detail: { status: "invalid_model_id", message: `Model ${String(fields.model_id)} is not available; use scribe_v2` } });
    }
    if (!file) return json(res, 422, { detail: [{ loc: ["body", "file"], msg: "field required", type: "value_error.missing" }] });
    const code = typeof fields.language_code === "string" ? fields.language_code : undefined;
    const local = await transcribeUpload(transcriber, file.bytes, "tiny.en", code === "eng" ? "en" : code, "transcribe");
    // diarize=true: Scribe puts speaker_id ("speaker_0", …) on every word. This stand-in
    // works out who spoke with the local diarizer, as its words come from the local engine.
    const speakerIds = fields.diarize === "true" ? await scribeSpeakers(file.bytes, local.segments, Number(fields.num_speakers) || undefined) : undefined;
    const words = (speakerIds ?? local.segments).flatMap((s) => s.words);
    const out: Array<{ text: string; start: number; end: number; type: string; logprob?: number; speaker_id?: string }> = [];
    for (const [i, w] of words.entries()) {
      if (i > 0) out.push({ text: " ", start: words[i - 1]!.end, end: w.start, type: "spacing" });
      out.push({
        text: w.word.trim(),
        start: w.start,
        end: w.end,
        type: "word",
        logprob: Math.log(w.probability ?? 0.9),
        ...(w.speaker ? { speaker_id: `speaker_${Number(w.speaker.slice(1)) - 1}` } : {}),
      });
    }
    return json(res, 200, {
      language_code: local.sourceLanguage === "en" ? "eng" : local.sourceLanguage,
      language_probability: 0.98,
      text: local.text,
      words: out,
      transcription_id: randomUUID(),
    });
  });
  return { ...server, close: async () => { await server.close(); await transcriber.close(); } };
}

async function scribeSpeakers(bytes: Buffer, segments: Parameters<typeof assignSpeakers>[0], maxSpeakers: number | undefined) {
  const file = path.join(tmpdir(), `provider-${randomUUID()}.flac`);
  await writeFile(file, bytes);
  try {
    const out = await diarizeFile(
      { python: whisperPython, weightsCandidates: [path.join(whisperModelsDir, "speaker-encoder", SPEAKER_WHEEL)] },
      { audioPath: file, maxSpeakers, signal: new AbortController().signal },
    );
    return assignSpeakers(segments, out.turns).segments;
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * The stand-in server of each cloud provider of the registry (domain/models.ts): adding a
 * provider without one fails to compile, and test/registry.test.ts runs its adapter against it.
 */
export const providerStandIns: Record<CloudProviderName, (apiKey: string) => Promise<ProviderServer>> = {
  groq: startGroqServer,
  elevenlabs: startElevenLabsServer,
};
