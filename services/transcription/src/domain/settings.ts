import type { MessageInitShape } from "@bufbuild/protobuf";
import { AppError, enumNames } from "@transcribe/platform";
import {
  Provider,
  ProviderSchema,
  ResponseFormat as ProtoResponseFormat,
  ResponseFormatSchema,
  type Settings,
  type SettingsSchema,
  TimestampGranularity,
  TimestampGranularitySchema,
} from "@transcribe/proto/transcription/v1/transcription";
import { AUTO_LANGUAGE, isLanguageCode } from "./languages.js";
import { validateSpeakerCounts } from "./speakers.js";
import { validateJobTerms } from "./vocabulary.js";
import { defaultModel, findModel, isProviderName, type ModelDefinition, type ProviderName } from "./models.js";

export type ResponseFormat = "json" | "verbose_json" | "text";
export type Granularity = "segment" | "word";

/**
 * What CreateTranscription or RetryTranscription asks for: the generated proto message, or a
 * plain object of its fields (the tests'). Checked once, by validateSettings.
 */
export type SettingsRequest = MessageInitShape<typeof SettingsSchema>;

/**
 * Settings as stored with a job (docs/requirements.md "Entities" transcription settings),
 * defaults applied: the proto message's fields, with its enums by the names the database
 * and the API use (provider "groq", format "verbose_json", granularity "word"). Language is
 * a Whisper code or "auto"; diarize is absent on jobs created before diarization existed;
 * vocabulary is absent when the job has no terms of its own (decision 0029).
 */
export type JobSettings = Omit<Settings, "$typeName" | "$unknown" | "provider" | "responseFormat" | "timestampGranularities" | "vocabulary"> & {
  provider: ProviderName;
  responseFormat: ResponseFormat;
  timestampGranularities: Granularity[];
  vocabulary?: string[];
};

/** The proto enums' values by the stored names (the registry's provider names are the Provider enum's). */
export const providerNames = enumNames<Provider>(ProviderSchema);
export const formatNames = enumNames<ProtoResponseFormat>(ResponseFormatSchema);
export const granularityNames = enumNames<TimestampGranularity>(TimestampGranularitySchema);

export function providerToProto(provider: ProviderName): Provider {
  return providerNames.value(provider) ?? Provider.UNSPECIFIED;
}

/** The provider a request names, or undefined for UNSPECIFIED and names this build does not register. */
export function providerFromProto(provider: Provider): ProviderName | undefined {
  const name = providerNames.name(provider);
  return name !== undefined && isProviderName(name) ? name : undefined;
}

/** Stored settings as a request again (a retry with the settings it had). */
export function settingsRequestOf(settings: JobSettings): SettingsRequest {
  const { provider, responseFormat, timestampGranularities, ...rest } = settings;
  return {
    ...rest,
    model: findModel(settings.model) ? settings.model : "",
    provider: providerNames.value(provider) ?? Provider.UNSPECIFIED,
    responseFormat: formatNames.value(responseFormat) ?? ProtoResponseFormat.UNSPECIFIED,
    timestampGranularities: timestampGranularities.map((g) => granularityNames.value(g) ?? TimestampGranularity.UNSPECIFIED),
  };
}

/** The language to give an engine: undefined when it is to detect it ("auto"). */
export function spokenLanguage(settings: Pick<JobSettings, "language">): string | undefined {
  return settings.language === AUTO_LANGUAGE ? undefined : settings.language;
}

/** Whisper's task: translation to English, or transcription in the spoken language. */
export function taskOf(settings: Pick<JobSettings, "translateToEn">): "transcribe" | "translate" {
  return settings.translateToEn ? "translate" : "transcribe";
}

export const MAX_PROMPT_LENGTH = 1000;
export const MAX_NAME_LENGTH = 255;

const invalid = (message: string, field: string) => new AppError("invalid_argument", message, { field });

/**
 * Validates settings with the spec's messages (docs/requirements.md "Validation") and applies the defaults. Order
 * matters for which message a user sees first: language, then English→English, then
 * the model and its abilities, then the numeric ranges.
 */
export function validateSettings(input: SettingsRequest): { settings: JobSettings; model: ModelDefinition } {
  const language = (input.language ?? "").trim().toLowerCase();
  if (!language) throw invalid("Please select a language", "language");
  const translateToEn = input.translateToEn ?? false;
  if (language === "en" && translateToEn) throw invalid("Cannot translate English to English", "translate_to_en");
  const model = input.model ? findModel(input.model) : defaultModel;
  if (!model) throw invalid(`Unknown model: ${input.model}`, "model");
  // UNSPECIFIED, or a provider this build does not register, means the model's own.
  const provider = input.provider ? providerFromProto(input.provider) : undefined;
  if (provider && provider !== model.provider) {
    throw invalid(`Model ${model.id} is provided by ${model.provider}, not ${provider}`, "provider");
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
  const named = input.timestampGranularities?.length ? input.timestampGranularities.map((g) => granularityNames.name(g)) : ["segment"];
  if (named.includes(undefined)) throw invalid("Unknown timestamp granularity", "timestamp_granularities");
  const granularities = named as Granularity[];
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
      responseFormat: ((input.responseFormat && formatNames.name(input.responseFormat)) || "verbose_json") as ResponseFormat,
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
