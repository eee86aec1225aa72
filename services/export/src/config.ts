import path from "node:path";
import { env, MAX_PRESIGN_EXPIRES_SECONDS } from "@transcribe/platform";
import { z } from "zod";

const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

/** The export service's own variables (the common ones come from runService). */
export const exportConfigSchema = z.object({
  /** Where TranscriptionService answers Connect. */
  TRANSCRIPTION_URL: env.httpUrl().default("http://127.0.0.1:7003"),
  /** Deadline of one call to the transcription service. */
  SERVICE_TIMEOUT_MS: env.positiveInt(10_000),
  /** The install's data directory; exports go to `${DATA_DIR}/exports` unless EXPORT_STORAGE_DIR says otherwise. */
  DATA_DIR: z.string().min(1).default(".data"),
  EXPORT_STORAGE_DIR: optional(z.string()),
  /**
   * Signs download URLs; at least 32 bytes. When unset, the install's key in
   * `${DATA_DIR}/secrets/storage-signing.key` (made on first start, shared with media).
   */
  STORAGE_SIGNING_SECRET: optional(
    z.string().refine((value) => Buffer.byteLength(value, "utf8") >= 32, "must be at least 32 bytes"),
  ),
  /**
   * The product's address as browsers reach it (the BFF's origin); download URLs are
   * `${PUBLIC_BASE_URL}/api/v1/storage/exports/…`, which the BFF forwards to this service.
   */
  PUBLIC_BASE_URL: env.httpUrl().default("http://localhost:8080"),
  /** Lifetime of a download URL, and of the exported file behind it. */
  EXPORT_URL_TTL_SECONDS: z.coerce.number().int().min(1).max(MAX_PRESIGN_EXPIRES_SECONDS).default(900),
  /** How often expired exports are removed. */
  EXPORT_SWEEP_INTERVAL_SECONDS: env.positiveInt(300),
  /** Replaces the default font directories for the PDF renderer. */
  EXPORT_FONT_DIR: optional(z.string()),
  /** Comma-separated font files used before all others, each `path` or `path#PostScriptName`. */
  EXPORT_FONT_FILES: optional(z.string()).transform((value) =>
    value === undefined ? [] : value.split(",").map((file) => file.trim()).filter(Boolean),
  ),
});
export type ExportConfig = z.infer<typeof exportConfigSchema>;

/**
 * Path under which the export service serves signed download URLs. The BFF forwards it
 * unchanged, next to media's /api/v1/storage/* (this prefix is the more specific one).
 */
export const DOWNLOAD_PATH = "/api/v1/storage/exports";

export function storageDirOf(config: Pick<ExportConfig, "DATA_DIR" | "EXPORT_STORAGE_DIR">): string {
  return path.resolve(config.EXPORT_STORAGE_DIR ?? path.join(config.DATA_DIR, "exports"));
}

export function downloadBaseUrl(config: Pick<ExportConfig, "PUBLIC_BASE_URL">): string {
  return `${config.PUBLIC_BASE_URL.replace(/\/+$/, "")}${DOWNLOAD_PATH}`;
}
