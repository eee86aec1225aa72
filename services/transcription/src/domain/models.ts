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
  /** Local models: what the weights take to download and to run. */
  readonly weights?: LocalWeights;
}

export interface LocalWeights {
  /** The repository's model files (model.bin, config, tokenizer, vocabulary) on the hub, in bytes. */
  readonly downloadBytes: number;
  /** Memory one engine holding the model needs on CPU (int8), in bytes: the refusal threshold. */
  readonly ramBytes: number;
}

const MB = 1_000_000;
const GB = 1_000_000_000;

/**
 * A local faster-whisper model. `engineModel` is faster-whisper's own name for it (its
 * `utils._MODELS` key, see engines/local/models.ts for the repositories); the id is
 * `whisper-<name>`, with `-local` where Groq already uses the plain id.
 */
function local(
  id: string,
  engineModel: string,
  name: string,
  options: { languages: readonly string[]; translation: boolean; downloadBytes: number; ramBytes: number; note?: string; isDefault?: boolean },
): ModelDefinition {
  return {
    id,
    provider: "local",
    name,
    languages: options.languages,
    translation: options.translation,
    engineModel,
    weights: { downloadBytes: options.downloadBytes, ramBytes: options.ramBytes },
    ...(options.note ? { note: options.note } : {}),
    ...(options.isDefault ? { isDefault: true } : {}),
  };
}

/**
 * The catalog. Local models run Whisper on this machine (faster-whisper, see decision
 * 0010); cloud models need their provider's key. `scribe-v1` is the spec's id, kept for
 * compatibility: ElevenLabs removed scribe_v1 on 2026-07-09, so it runs on scribe_v2.
 */
export const modelCatalog: readonly ModelDefinition[] = [
  // Sizes: the CTranslate2 float16 files of each hub repository; RAM: one int8 engine's
  // peak on CPU (faster-whisper's published figures, rounded up), see decision 0013.
  local("whisper-base", "base", "Whisper base (on this server, multilingual)", {
    languages: classicLanguageCodes, translation: true, downloadBytes: 145 * MB, ramBytes: 700 * MB, isDefault: true,
  }),
  local("whisper-tiny.en", "tiny.en", "Whisper tiny.en (on this server, English only, fastest)", {
    languages: ["en"], translation: false, downloadBytes: 76 * MB, ramBytes: 500 * MB,
  }),
  local("whisper-tiny", "tiny", "Whisper tiny (on this server, multilingual, fastest)", {
    languages: classicLanguageCodes, translation: true, downloadBytes: 76 * MB, ramBytes: 500 * MB,
  }),
  local("whisper-base.en", "base.en", "Whisper base.en (on this server, English only)", {
    languages: ["en"], translation: false, downloadBytes: 145 * MB, ramBytes: 700 * MB,
  }),
  local("whisper-small", "small", "Whisper small (on this server, multilingual, slower, more accurate)", {
    languages: classicLanguageCodes, translation: true, downloadBytes: 484 * MB, ramBytes: 1500 * MB,
  }),
  local("whisper-small.en", "small.en", "Whisper small.en (on this server, English only, slower, more accurate)", {
    languages: ["en"], translation: false, downloadBytes: 484 * MB, ramBytes: 1500 * MB,
  }),
  local("whisper-medium", "medium", "Whisper medium (on this server, multilingual, slow)", {
    languages: classicLanguageCodes, translation: true, downloadBytes: 1530 * MB, ramBytes: 3 * GB,
  }),
  local("whisper-large-v3-local", "large-v3", "Whisper large-v3 (on this server, multilingual, slowest, most accurate)", {
    languages: allLanguageCodes, translation: true, downloadBytes: 3090 * MB, ramBytes: 5 * GB,
  }),
  local("whisper-large-v3-turbo-local", "large-v3-turbo", "Whisper large-v3 turbo (on this server, multilingual, cannot translate)", {
    languages: allLanguageCodes, translation: false, downloadBytes: 1620 * MB, ramBytes: 3 * GB,
    note: "large-v3-turbo was trained without translation: it cannot translate",
  }),
  local("whisper-distil-large-v3", "distil-large-v3", "Distil-Whisper large-v3 (on this server, English only, fast)", {
    languages: ["en"], translation: false, downloadBytes: 1510 * MB, ramBytes: 3 * GB,
  }),
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
