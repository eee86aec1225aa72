import { allLanguageCodes, classicLanguageCodes } from "./languages.js";

/**
 * The registry of speech providers and models (decision 0036): every fact about a provider
 * or a model lives here, and the catalog, the worker, the pools, batched decoding, model
 * downloads, configuration, the BFF (through the proto enum) and the chart's values read
 * it. docs/extending.md, "Adding a speech provider", is the recipe;
 * test/registry.test.ts fails on a provider or model added only in part.
 */

/** What a provider is and needs; the adapter that runs it is engines/adapters.ts (domain code does no I/O). */
export interface ProviderDefinition {
  /** Said to the user ("Needs a Groq API key"). */
  readonly label: string;
  /** The environment variable holding its API key (transcription API and worker); none for local. */
  readonly keyVariable?: string;
  /** The environment variable overriding its API's address (a proxy, or a local server in tests). */
  readonly baseUrlVariable?: string;
  /**
   * Who finds the speakers when a job asks for them: the provider itself (its words carry
   * speaker ids, and the request tells it to) or the local diarizer after the transcript.
   */
  readonly speakers: "provider" | "diarizer";
}

/** Providers; the proto `Provider` enum has a PROVIDER_<NAME> value for each name. */
export const providers = {
  local: { label: "Whisper on this server", speakers: "diarizer" },
  groq: { label: "Groq", keyVariable: "GROQ_API_KEY", baseUrlVariable: "GROQ_BASE_URL", speakers: "diarizer" },
  elevenlabs: { label: "ElevenLabs", keyVariable: "ELEVENLABS_API_KEY", baseUrlVariable: "ELEVENLABS_BASE_URL", speakers: "provider" },
} as const satisfies Record<string, ProviderDefinition>;

export type ProviderName = keyof typeof providers;
export const providerNames = Object.keys(providers) as ProviderName[];

/** The providers that run in the cloud (an API key and an address each). */
export type CloudProviderName = { [P in ProviderName]: (typeof providers)[P] extends { keyVariable: string } ? P : never }[ProviderName];
/** Environment variables of the cloud providers' keys and addresses. */
export type ProviderKeyVariable = (typeof providers)[CloudProviderName]["keyVariable"];
export type ProviderBaseUrlVariable = (typeof providers)[CloudProviderName]["baseUrlVariable"];

export function isProviderName(name: string): name is ProviderName {
  return Object.hasOwn(providers, name);
}

export function providerOf(name: ProviderName): ProviderDefinition {
  return providers[name];
}

export function isCloudProvider(name: string): name is CloudProviderName {
  return isProviderName(name) && providerOf(name).keyVariable !== undefined;
}

export const cloudProviderNames = providerNames.filter(isCloudProvider);

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
  /** Said to the user in the catalog (and when a job starts, with `noteOnStart`). */
  readonly note?: string;
  /** The note is said again when a job starts: the job runs on another model than the one named. */
  readonly noteOnStart?: boolean;
  /** Default model when settings.model is empty. */
  readonly isDefault?: boolean;
  /** Local models: what the weights take to download and to run. */
  readonly weights?: LocalWeights;
}

export interface LocalWeights {
  /** The Hugging Face repository holding the CTranslate2 conversion (what faster-whisper downloads for the name). */
  readonly repository: string;
  /** The repository's model files (model.bin, config, tokenizer, vocabulary) on the hub, in bytes. */
  readonly downloadBytes: number;
  /** Memory one engine holding the model needs on CPU (int8), in bytes: the refusal threshold. */
  readonly ramBytes: number;
  /**
   * Working memory one item of a batch needs beyond the loaded model (batched decoding,
   * decision 0026): the encoder's activations for 30 s of audio and the decoder's beam
   * cache, which grow with the model's width. Measured roughly on base (about 60 MiB an
   * item, int8, beam 5) and scaled by width.
   */
  readonly batchItemBytes: number;
  /** The worker pool its jobs go to (decision 0026): one of the large ones on a CPU is slower than real time. */
  readonly pool: "cpu" | "gpu";
}

const MB = 1_000_000;
const GB = 1_000_000_000;
const MIB = 1024 * 1024;

/** The batch item size of a model of each width (see LocalWeights.batchItemBytes). */
const batchItem = { tiny: 40 * MIB, base: 60 * MIB, small: 150 * MIB, medium: 350 * MIB, large: 600 * MIB } as const;

/**
 * The Hugging Face repository of a faster-whisper model name, as faster-whisper's own
 * `utils._MODELS` map (faster-whisper 1.2) has it for every name it knows: Systran's
 * conversions, `faster-distil-whisper-*` for the distilled ones; a name with a `/` is a
 * repository already. A catalog model may name another (large-v3-turbo below).
 */
export function hubRepositoryOf(engineModel: string): string {
  return localModelOf(engineModel)?.weights?.repository ?? fasterWhisperRepository(engineModel);
}

function fasterWhisperRepository(engineModel: string): string {
  if (engineModel.includes("/")) return engineModel;
  if (engineModel.startsWith("distil-")) return `Systran/faster-distil-whisper-${engineModel.slice("distil-".length)}`;
  return `Systran/faster-whisper-${engineModel}`;
}

/**
 * A local faster-whisper model. `engineModel` is faster-whisper's own name for it (its
 * `utils._MODELS` key); the id is `whisper-<name>`, with `-local` where Groq already uses
 * the plain id.
 */
function local(
  id: string,
  engineModel: string,
  name: string,
  options: {
    languages: readonly string[];
    translation: boolean;
    downloadBytes: number;
    ramBytes: number;
    width: keyof typeof batchItem;
    pool: LocalWeights["pool"];
    repository?: string;
    note?: string;
    isDefault?: boolean;
  },
): ModelDefinition {
  return {
    id,
    provider: "local",
    name,
    languages: options.languages,
    translation: options.translation,
    engineModel,
    weights: {
      repository: options.repository ?? fasterWhisperRepository(engineModel),
      downloadBytes: options.downloadBytes,
      ramBytes: options.ramBytes,
      batchItemBytes: batchItem[options.width],
      pool: options.pool,
    },
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
    languages: classicLanguageCodes, translation: true, downloadBytes: 145 * MB, ramBytes: 700 * MB, width: "base", pool: "cpu", isDefault: true,
  }),
  local("whisper-tiny.en", "tiny.en", "Whisper tiny.en (on this server, English only, fastest)", {
    languages: ["en"], translation: false, downloadBytes: 76 * MB, ramBytes: 500 * MB, width: "tiny", pool: "cpu",
  }),
  local("whisper-tiny", "tiny", "Whisper tiny (on this server, multilingual, fastest)", {
    languages: classicLanguageCodes, translation: true, downloadBytes: 76 * MB, ramBytes: 500 * MB, width: "tiny", pool: "cpu",
  }),
  local("whisper-base.en", "base.en", "Whisper base.en (on this server, English only)", {
    languages: ["en"], translation: false, downloadBytes: 145 * MB, ramBytes: 700 * MB, width: "base", pool: "cpu",
  }),
  local("whisper-small", "small", "Whisper small (on this server, multilingual, slower, more accurate)", {
    languages: classicLanguageCodes, translation: true, downloadBytes: 484 * MB, ramBytes: 1500 * MB, width: "small", pool: "cpu",
  }),
  local("whisper-small.en", "small.en", "Whisper small.en (on this server, English only, slower, more accurate)", {
    languages: ["en"], translation: false, downloadBytes: 484 * MB, ramBytes: 1500 * MB, width: "small", pool: "cpu",
  }),
  local("whisper-medium", "medium", "Whisper medium (on this server, multilingual, slow)", {
    languages: classicLanguageCodes, translation: true, downloadBytes: 1530 * MB, ramBytes: 3 * GB, width: "medium", pool: "gpu",
  }),
  local("whisper-large-v3-local", "large-v3", "Whisper large-v3 (on this server, multilingual, slowest, most accurate)", {
    languages: allLanguageCodes, translation: true, downloadBytes: 3090 * MB, ramBytes: 5 * GB, width: "large", pool: "gpu",
  }),
  local("whisper-large-v3-turbo-local", "large-v3-turbo", "Whisper large-v3 turbo (on this server, multilingual, cannot translate)", {
    languages: allLanguageCodes, translation: false, downloadBytes: 1620 * MB, ramBytes: 3 * GB, width: "large", pool: "gpu", repository: "mobiuslabsgmbh/faster-whisper-large-v3-turbo",
    note: "large-v3-turbo was trained without translation: it cannot translate",
  }),
  local("whisper-distil-large-v3", "distil-large-v3", "Distil-Whisper large-v3 (on this server, English only, fast)", {
    languages: ["en"], translation: false, downloadBytes: 1510 * MB, ramBytes: 3 * GB, width: "large", pool: "gpu",
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
    noteOnStart: true,
  },
];

export const defaultModel: ModelDefinition = modelCatalog.find((m) => m.isDefault)!;

export function findModel(id: string): ModelDefinition | undefined {
  return modelCatalog.find((m) => m.id === id);
}

/** The catalog's local model running on these weights (faster-whisper's name), if any. */
export function localModelOf(engineModel: string): ModelDefinition | undefined {
  return modelCatalog.find((m) => m.provider === "local" && m.engineModel === engineModel);
}

/** The provider model a job runs on, and the note the user gets when it differs from the request. */
export function engineModelFor(model: ModelDefinition, translate: boolean): { engineModel: string; message?: string } {
  if (translate && model.translationEngineModel) {
    return {
      engineModel: model.translationEngineModel,
      message: `${model.id} cannot translate; this job runs on ${model.translationEngineModel}`,
    };
  }
  if (model.note && model.noteOnStart) return { engineModel: model.engineModel, message: model.note };
  return { engineModel: model.engineModel };
}
