import { normalizeLanguage, toIso639_3 } from "../../domain/languages.js";
import { scribeKeyterms } from "../../domain/vocabulary.js";
import { TranscriberError, type TranscribeRequest, type Transcriber, type TranscriptResult, type Word } from "../../domain/transcriber.js";
import { segmentsFromWords, transcribeInWindows } from "./windows.js";

export interface ElevenLabsTranscriberOptions {
  apiKey: string;
  /** Default https://api.elevenlabs.io; tests point it at a local server. */
  baseURL?: string | undefined;
  windowSeconds?: number;
  overlapSeconds?: number;
  timeoutMs?: number;
}

interface ScribeResponse {
  language_code?: string;
  language_probability?: number;
  text: string;
  words?: Array<{ text: string; start: number; end: number; type?: "word" | "spacing" | "audio_event"; logprob?: number; speaker_id?: string }>;
}

/**
 * ElevenLabs Scribe over its HTTP API (POST /v1/speech-to-text, multipart, `xi-api-key`),
 * word timestamps, no audio-event tags. The catalog's `scribe-v1` runs on `scribe_v2`
 * (scribe_v1 was removed on 2026-07-09). Scribe answers a flat list of words and
 * spacings; segments are made from them at sentence ends and pauses.
 */
export class ElevenLabsTranscriber implements Transcriber {
  readonly name = "elevenlabs";
  private readonly baseURL: string;

  constructor(private readonly options: ElevenLabsTranscriberOptions) {
    this.baseURL = (options.baseURL ?? "https://api.elevenlabs.io").replace(/\/$/, "");
  }

  async transcribe(request: TranscribeRequest): Promise<TranscriptResult> {
    const result = await this.run(request);
    return request.settings.diarize ? { ...result, providerSpeakers: true } : result;
  }

  private run(request: TranscribeRequest): Promise<TranscriptResult> {
    if (request.settings.translateToEn) {
      return Promise.reject(new TranscriberError("permanent", "ElevenLabs Scribe cannot translate; choose a Whisper model"));
    }
    return transcribeInWindows(
      request,
      {
        windowSeconds: this.options.windowSeconds ?? 1800,
        overlapSeconds: this.options.overlapSeconds ?? 5,
        engine: { name: "elevenlabs", model: request.engineModel },
      },
      async (audio, language) => {
        const form = new FormData();
        form.set("model_id", request.engineModel);
        form.set("file", new Blob([audio.bytes], { type: "audio/flac" }), audio.fileName);
        form.set("timestamps_granularity", "word");
        form.set("tag_audio_events", "false");
        // Scribe's own diarization when speakers are asked for (speaker_id on every word).
        form.set("diarize", request.settings.diarize ? "true" : "false");
        if (request.settings.diarize && request.settings.maxSpeakers) form.set("num_speakers", String(request.settings.maxSpeakers));
        const code = language ? toIso639_3(language) : undefined;
        if (code) form.set("language_code", code);
        if (request.settings.temperature > 0) form.set("temperature", String(request.settings.temperature));
        // The vocabulary as Scribe's key terms (decision 0029); it takes no free-text prompt.
        for (const term of scribeKeyterms(request.vocabulary ?? [])) form.append("keyterms", term);
        let response: Response;
        try {
          response = await fetch(`${this.baseURL}/v1/speech-to-text`, {
            method: "POST",
            headers: { "xi-api-key": this.options.apiKey },
            body: form,
            signal: AbortSignal.any([request.signal, AbortSignal.timeout(this.options.timeoutMs ?? 10 * 60_000)]),
          });
        } catch (error) {
          if (request.signal.aborted) throw request.signal.reason;
          throw new TranscriberError("transient", `ElevenLabs could not be reached: ${(error as Error).message}`);
        }
        if (!response.ok) throw await errorOf(response);
        const body = (await response.json()) as ScribeResponse;
        const words: Word[] = [];
        let spaced = true;
        for (const w of body.words ?? []) {
          if (w.type === "spacing") {
            spaced = true;
            continue;
          }
          if (w.type === "audio_event") continue;
          words.push({
            word: spaced && words.length > 0 ? ` ${w.text}` : w.text,
            start: w.start,
            end: w.end,
            ...(w.logprob !== undefined ? { probability: Math.exp(w.logprob) } : {}),
            ...(request.settings.diarize && w.speaker_id ? { speaker: w.speaker_id } : {}),
          });
          spaced = false;
        }
        return { language: normalizeLanguage(body.language_code) ?? language ?? "en", segments: segmentsFromWords(words) };
      },
    );
  }

  async close(): Promise<void> {}
}

async function errorOf(response: Response): Promise<TranscriberError> {
  let detail = "";
  try {
    const body = (await response.json()) as { detail?: { message?: string } | Array<{ msg?: string }> | string };
    detail = typeof body.detail === "string" ? body.detail : Array.isArray(body.detail) ? body.detail.map((d) => d.msg).join("; ") : (body.detail?.message ?? "");
  } catch {
    detail = "";
  }
  const status = response.status;
  const suffix = detail ? `: ${detail}` : "";
  if (status === 429) {
    const retryAfter = Number(response.headers.get("retry-after") ?? NaN);
    return new TranscriberError("transient", `ElevenLabs' rate limit was reached${suffix}`, Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined);
  }
  if (status >= 500) return new TranscriberError("transient", `ElevenLabs failed (HTTP ${status})${suffix}`);
  if (status === 401 || status === 403) return new TranscriberError("permanent", "ElevenLabs refused the server's API key (ELEVENLABS_API_KEY)");
  return new TranscriberError("permanent", `ElevenLabs refused the audio (HTTP ${status})${suffix}`);
}
