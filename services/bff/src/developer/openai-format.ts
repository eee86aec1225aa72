import { AppError } from "@transcribe/platform";
import { ResponseFormat, TimestampGranularity, type Transcription } from "@transcribe/proto/transcription/v1/transcription";
import { z } from "zod";

/** OpenAI's name for "the server's default model". */
export const WHISPER_1 = "whisper-1";

export const responseFormats = ["json", "text", "srt", "verbose_json", "vtt"] as const;
export type OpenAiResponseFormat = (typeof responseFormats)[number];

/** OpenAI's multipart fields for /v1/audio/transcriptions (translations take the same minus language and granularities). */
export const openAiFormSchema = z
  .object({
    file: z.string().describe("The audio or video file (binary part; flac, m4a, mp3, mp4, mpeg, mpga, oga, ogg, wav, webm)").meta({ format: "binary" }),
    model: z.string().max(100).describe('A model id from GET /v1/models; "whisper-1" is the server\'s default model'),
    language: z.string().max(10).optional().describe("ISO-639-1 code of the spoken language; omitted: detected"),
    prompt: z.string().max(2000).optional(),
    response_format: z.enum(responseFormats).default("json"),
    temperature: z.coerce.number().min(0).max(1).default(0),
    "timestamp_granularities[]": z.array(z.enum(["word", "segment"])).optional().describe("verbose_json: word adds words[]"),
  })
  .meta({ id: "OpenAiTranscriptionForm" });

export type OpenAiForm = z.infer<typeof openAiFormSchema>;

/** The text fields of a multipart form, checked with OpenAI's names; the first problem names its field. */
export function parseOpenAiFields(fields: Map<string, string[]>): Omit<OpenAiForm, "file"> {
  const single = (name: string) => fields.get(name)?.at(-1);
  const granularities = [...(fields.get("timestamp_granularities[]") ?? []), ...(fields.get("timestamp_granularities") ?? [])];
  const input = {
    file: "",
    model: single("model") ?? "",
    ...(single("language") ? { language: single("language") } : {}),
    ...(single("prompt") ? { prompt: single("prompt") } : {}),
    ...(single("response_format") ? { response_format: single("response_format") } : {}),
    ...(single("temperature") ? { temperature: single("temperature") } : {}),
    ...(granularities.length > 0 ? { "timestamp_granularities[]": granularities } : {}),
  };
  const parsed = openAiFormSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = String(issue.path[0] ?? "");
    throw new AppError("invalid_argument", `${param}: ${issue.message}`, { param });
  }
  if (!parsed.data.model) throw new AppError("invalid_argument", "model is required (use whisper-1 for the server's default)", { param: "model" });
  const { file: _file, ...rest } = parsed.data;
  return rest;
}

/** The product's transcription settings for an OpenAI request. */
export function settingsFor(form: Omit<OpenAiForm, "file">, task: "transcribe" | "translate") {
  const words = form["timestamp_granularities[]"]?.includes("word") ?? false;
  return {
    model: form.model === WHISPER_1 ? "" : form.model,
    language: task === "translate" ? "auto" : (form.language?.toLowerCase() ?? "auto"),
    translateToEn: task === "translate",
    responseFormat: ResponseFormat.VERBOSE_JSON,
    timestampGranularities: words ? [TimestampGranularity.SEGMENT, TimestampGranularity.WORD] : [TimestampGranularity.SEGMENT],
    temperature: form.temperature,
    ...(form.prompt ? { prompt: form.prompt } : {}),
  };
}

const languageNames = new Intl.DisplayNames(["en"], { type: "language" });

/** OpenAI's verbose_json names the language in English words ("german"), not by code. */
export function languageName(code: string): string {
  if (!code) return "";
  try {
    return (languageNames.of(code) ?? code).toLowerCase();
  } catch {
    return code;
  }
}

export const verboseJsonSchema = z
  .object({
    task: z.enum(["transcribe", "translate"]),
    language: z.string(),
    duration: z.number(),
    text: z.string(),
    // Whisper's seek, tokens and log-probabilities are not kept by the pipeline, so they are left out rather than made up.
    segments: z.array(z.object({ id: z.number().int(), start: z.number(), end: z.number(), text: z.string() })),
    words: z.array(z.object({ word: z.string(), start: z.number(), end: z.number() })).optional(),
  })
  .meta({ id: "OpenAiVerboseTranscription" });

export const jsonTranscriptionSchema = z.object({ text: z.string() }).meta({ id: "OpenAiTranscription" });

/** json and verbose_json bodies from a finished transcription (srt and vtt come from the export service). */
export function openAiBody(t: Transcription, format: "json" | "verbose_json", task: "transcribe" | "translate", withWords: boolean) {
  const result = t.result;
  const text = result?.text ?? "";
  if (format === "json") return { text };
  const segments = (result?.segments ?? []).map((s) => ({ id: s.id, start: s.start, end: s.end, text: s.text }));
  const words = withWords ? (result?.segments ?? []).flatMap((s) => s.words.map((w) => ({ word: w.word, start: w.start, end: w.end }))) : undefined;
  return {
    task,
    language: languageName(result?.language ?? ""),
    duration: result?.duration ?? 0,
    text,
    segments,
    ...(words ? { words } : {}),
  };
}
