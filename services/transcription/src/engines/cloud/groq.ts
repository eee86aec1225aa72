import Groq, { APIConnectionError, APIError, APIUserAbortError, toFile } from "groq-sdk";
import { promptWithTerms } from "../../domain/vocabulary.js";
import { normalizeLanguage } from "../../domain/languages.js";
import { TranscriberError, type Segment, type TranscribeRequest, type Transcriber, type TranscriptResult, type Word } from "../../domain/transcriber.js";
import { attachWords, transcribeInWindows } from "./windows.js";

export interface GroqTranscriberOptions {
  apiKey: string;
  /** Default https://api.groq.com; tests point it at a local server. */
  baseURL?: string | undefined;
  /** Audio per request. 10 minutes of 16 kHz mono FLAC is ~10 MB, well under the 25 MB request limit. */
  windowSeconds?: number;
  overlapSeconds?: number;
  timeoutMs?: number;
}

interface VerboseJson {
  text: string;
  language?: string;
  duration?: number;
  segments?: Array<{ start: number; end: number; text: string; avg_logprob?: number; compression_ratio?: number; no_speech_prob?: number }>;
  words?: Array<{ word: string; start: number; end: number }>;
}

/**
 * Groq's Whisper (whisper-large-v3, whisper-large-v3-turbo) through groq-sdk:
 * verbose_json with segment and word timestamps, audio sent in windows under the
 * request limit. Translations go to /audio/translations (the catalog already maps
 * turbo to large-v3 for them, and the job says so). The SDK's own retries are off: the
 * worker retries with its backoff, honouring retry-after.
 */
export class GroqTranscriber implements Transcriber {
  readonly name = "groq";
  private readonly client: Groq;

  constructor(private readonly options: GroqTranscriberOptions) {
    this.client = new Groq({
      apiKey: options.apiKey,
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      maxRetries: 0,
      timeout: options.timeoutMs ?? 10 * 60_000,
    });
  }

  transcribe(request: TranscribeRequest): Promise<TranscriptResult> {
    return transcribeInWindows(
      request,
      {
        windowSeconds: this.options.windowSeconds ?? 600,
        overlapSeconds: this.options.overlapSeconds ?? 5,
        engine: { name: "groq", model: request.engineModel },
      },
      async (audio, language) => {
        const file = await toFile(audio.bytes, audio.fileName, { type: "audio/flac" });
        const prompt = promptWithTerms(request.settings.prompt, request.vocabulary ?? []);
        const common = {
          file,
          model: request.engineModel,
          response_format: "verbose_json" as const,
          temperature: request.settings.temperature,
          // The vocabulary goes after the user's prompt (decision 0029).
          ...(prompt ? { prompt } : {}),
        };
        let answer: VerboseJson;
        try {
          answer = (
            request.settings.translateToEn
              ? await this.client.audio.translations.create(common, { signal: request.signal })
              : await this.client.audio.transcriptions.create(
                  {
                    ...common,
                    timestamp_granularities: ["word", "segment"],
                    ...(language ? { language: language === "jw" ? "jv" : language } : {}),
                  },
                  { signal: request.signal },
                )
          ) as unknown as VerboseJson;
        } catch (error) {
          throw toTranscriberError(error, request.signal);
        }
        const words: Word[] = (answer.words ?? []).map((w) => ({ word: w.word.startsWith(" ") ? w.word : ` ${w.word}`, start: w.start, end: w.end }));
        const segments: Segment[] = attachWords(
          (answer.segments ?? []).map((s) => ({
            start: s.start,
            end: s.end,
            text: s.text,
            ...(s.avg_logprob !== undefined ? { avgLogprob: s.avg_logprob } : {}),
            ...(s.compression_ratio !== undefined ? { compressionRatio: s.compression_ratio } : {}),
            ...(s.no_speech_prob !== undefined ? { noSpeechProb: s.no_speech_prob } : {}),
          })),
          words,
        );
        return { language: normalizeLanguage(answer.language) ?? language ?? "en", segments };
      },
    );
  }

  async close(): Promise<void> {}
}

function toTranscriberError(error: unknown, signal: AbortSignal): Error {
  if (signal.aborted || error instanceof APIUserAbortError) return signal.reason instanceof Error ? signal.reason : new TranscriberError("transient", "The job was stopped");
  if (error instanceof APIConnectionError) return new TranscriberError("transient", `Groq could not be reached: ${error.message}`);
  if (error instanceof APIError) {
    const status = error.status ?? 0;
    const detail = providerMessage(error);
    if (status === 429) {
      const retryAfter = Number(error.headers?.get?.("retry-after") ?? NaN);
      return new TranscriberError("transient", `Groq's rate limit was reached${detail ? `: ${detail}` : ""}`, Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined);
    }
    if (status >= 500) return new TranscriberError("transient", `Groq failed (HTTP ${status})${detail ? `: ${detail}` : ""}`);
    if (status === 401 || status === 403) return new TranscriberError("permanent", "Groq refused the server's API key (GROQ_API_KEY)");
    return new TranscriberError("permanent", `Groq refused the audio (HTTP ${status})${detail ? `: ${detail}` : ""}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}

function providerMessage(error: APIError): string {
  const body = error.error as { error?: { message?: string }; message?: string } | undefined;
  return body?.error?.message ?? body?.message ?? "";
}
