import { allLanguageCodes, classicLanguageCodes } from "./languages.js";

export type ProviderName = "local" | "groq" | "elevenlabs";

/** One entry of the speech model catalog (what settings.model names). */
export interface ModelDefinition {
  readonly id: string;
  readonly provider: ProviderName;
  readonly name: string;
  readonly languages: readonly string[];
  /** Whether settings.translate_to_en is accepted. */
  readonly translation: boolean;
  /** What actually runs: local weights name, or the provider's model id. */
  readonly engineModel: string;
  /** Provider model used instead when translating (Groq's turbo cannot translate). */
  readonly translationEngineModel?: string;
  /** Said to the user in the catalog and when a job starts. */
  readonly note?: string;
  /** Default model when settings.model is empty. */
  readonly isDefault?: boolean;
}

/**
 * The catalog. Local models run Whisper on this machine (faster-whisper, see decision
 * 0010); cloud models need their provider's key. `scribe-v1` is the spec's id, kept for
 * compatibility: ElevenLabs removed scribe_v1 on 2026-07-09, so it runs on scribe_v2.
 */
export const modelCatalog: readonly ModelDefinition[] = [
  {
    id: "whisper-base",
    provider: "local",
    name: "Whisper base (on this server, multilingual)",
    languages: classicLanguageCodes,
    translation: true,
    engineModel: "base",
    isDefault: true,
  },
  {
    id: "whisper-tiny.en",
    provider: "local",
    name: "Whisper tiny.en (on this server, English only, fastest)",
    languages: ["en"],
    translation: false,
    engineModel: "tiny.en",
  },
  {
    id: "whisper-small",
    provider: "local",
    name: "Whisper small (on this server, multilingual, slower, more accurate)",
    languages: classicLanguageCodes,
    translation: true,
    engineModel: "small",
  },
  {
    id: "whisper-large-v3-turbo",
    provider: "groq",
    name: "Whisper large-v3 turbo (Groq)",
    languages: allLanguageCodes,
    translation: true,
    engineModel: "whisper-large-v3-turbo",
    translationEngineModel: "whisper-large-v3",
    note: "whisper-large-v3-turbo cannot translate; translations run on whisper-large-v3",
  },
  {
    id: "whisper-large-v3",
    provider: "groq",
    name: "Whisper large-v3 (Groq)",
    languages: allLanguageCodes,
    translation: true,
    engineModel: "whisper-large-v3",
  },
  {
    id: "scribe-v1",
    provider: "elevenlabs",
    name: "ElevenLabs Scribe (runs on scribe_v2)",
    languages: allLanguageCodes,
    translation: false,
    engineModel: "scribe_v2",
    note: "ElevenLabs removed scribe_v1 on 2026-07-09; scribe-v1 runs on scribe_v2",
  },
];

export const defaultModel: ModelDefinition = modelCatalog.find((m) => m.isDefault)!;

export function findModel(id: string): ModelDefinition | undefined {
  return modelCatalog.find((m) => m.id === id);
}

/** The provider model a job runs on, and the note the user gets when it differs from the request. */
export function engineModelFor(model: ModelDefinition, translate: boolean): { engineModel: string; message?: string } {
  if (translate && model.translationEngineModel) {
    return {
      engineModel: model.translationEngineModel,
      message: `${model.id} cannot translate; this job runs on ${model.translationEngineModel}`,
    };
  }
  if (model.note && model.provider === "elevenlabs") return { engineModel: model.engineModel, message: model.note };
  return { engineModel: model.engineModel };
}
