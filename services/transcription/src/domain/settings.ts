import { AppError } from "@transcribe/platform";
import { AUTO_LANGUAGE, isLanguageCode } from "./languages.js";
import { validateSpeakerCounts } from "./speakers.js";
import { validateJobTerms } from "./vocabulary.js";
import { defaultModel, findModel, type ModelDefinition, type ProviderName } from "./models.js";

export type ResponseFormat = "json" | "verbose_json" | "text";
export type Granularity = "segment" | "word";

/** Settings as stored with a job (docs/requirements.md "Entities" transcription settings), defaults applied. */
export interface JobSettings {
  provider: ProviderName;
  model: string;
  responseFormat: ResponseFormat;
  timestampGranularities: Granularity[];
  temperature: number;
  /** A Whisper language code, or "auto" to detect it. */
  language: string;
  prompt?: string;
  translateToEn: boolean;
  /** Identify speakers; absent on jobs created before diarization existed. */
  diarize?: boolean;
  minSpeakers?: number;
  maxSpeakers?: number;
  /** Extra terms for this file only (decision 0029). */
  vocabulary?: string[];
  /** false: the user's vocabulary is not used; absent means it is (when it has terms). */
  useVocabulary?: boolean;
}

export interface SettingsInput {
  provider?: ProviderName | undefined;
  model?: string | undefined;
  responseFormat?: ResponseFormat | undefined;
  timestampGranularities?: readonly Granularity[] | undefined;
  temperature?: number | undefined;
  language?: string | undefined;
  prompt?: string | undefined;
  translateToEn?: boolean | undefined;
  diarize?: boolean | undefined;
  minSpeakers?: number | undefined;
  maxSpeakers?: number | undefined;
  vocabulary?: readonly string[] | undefined;
  useVocabulary?: boolean | undefined;
}

export const MAX_PROMPT_LENGTH = 1000;
export const MAX_NAME_LENGTH = 255;

const invalid = (message: string, field: string) => new AppError("invalid_argument", message, { field });

/**
 * Validates settings with the spec's messages (docs/requirements.md "Validation") and applies the defaults. Order
 * matters for which message a user sees first: language, then English→English, then
 * the model and its abilities, then the numeric ranges.
 */
export function validateSettings(input: SettingsInput): { settings: JobSettings; model: ModelDefinition } {
  const language = (input.language ?? "").trim().toLowerCase();
  if (!language) throw invalid("Please select a language", "language");
  const translateToEn = input.translateToEn ?? false;
  if (language === "en" && translateToEn) throw invalid("Cannot translate English to English", "translate_to_en");
  const model = input.model ? findModel(input.model) : defaultModel;
  if (!model) throw invalid(`Unknown model: ${input.model}`, "model");
  if (input.provider && input.provider !== model.provider) {
    throw invalid(`Model ${model.id} is provided by ${model.provider}, not ${input.provider}`, "provider");
  }
  if (language !== AUTO_LANGUAGE && !isLanguageCode(language)) throw invalid(`Unknown language: ${language}`, "language");
  if (language !== AUTO_LANGUAGE && !model.languages.includes(language)) {
    throw invalid(`Model ${model.id} does not support language ${language}`, "language");
  }
  if (translateToEn && !model.translation) throw invalid(`Model ${model.id} cannot translate to English`, "translate_to_en");
  const temperature = input.temperature ?? 0;
  if (!Number.isFinite(temperature) || temperature < 0 || temperature > 1) {
    throw invalid("Temperature must be between 0 and 1", "temperature");
  }
  const granularities = input.timestampGranularities?.length ? [...input.timestampGranularities] : (["segment"] as Granularity[]);
  if (new Set(granularities).size !== granularities.length) {
    throw invalid("Timestamp granularities must be distinct", "timestamp_granularities");
  }
  const diarize = input.diarize ?? false;
  const counts = diarize ? validateSpeakerCounts(input.minSpeakers, input.maxSpeakers) : {};
  const prompt = input.prompt?.trim() || undefined;
  if (prompt && prompt.length > MAX_PROMPT_LENGTH) throw invalid(`Prompt is too long (max ${MAX_PROMPT_LENGTH})`, "prompt");
  const vocabulary = validateJobTerms(input.vocabulary ?? []);
  return {
    model,
    settings: {
      provider: model.provider,
      model: model.id,
      responseFormat: input.responseFormat ?? "verbose_json",
      timestampGranularities: granularities,
      temperature,
      language,
      ...(prompt ? { prompt } : {}),
      translateToEn,
      ...(diarize ? { diarize, ...counts } : {}),
      ...(vocabulary.length ? { vocabulary } : {}),
      ...(input.useVocabulary === false ? { useVocabulary: false } : {}),
    },
  };
}

/** Rename rule (docs/requirements.md "Validation"): trimmed, not empty, at most 255 characters. */
export function validateName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid("Name cannot be empty", "new_name");
  if ([...name].length > MAX_NAME_LENGTH) throw invalid("Name is too long", "new_name");
  return name;
}
