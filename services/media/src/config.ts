import { env } from "@transcribe/platform";
import { z } from "zod";

const MB = 1024 * 1024;

/**
 * The media service's own variables (the common ones, DATABASE_URL and the event bus
 * are added by runService). Every limit of docs/requirements.md "Validation", "Limits" is here with the spec's value
 * as its default.
 */
export const mediaConfigSchema = z.object({
  /** Where DATA_DIR-relative defaults live; the embedded launcher sets it. */
  DATA_DIR: z.string().default(".data"),

  /** Object storage adapter: a local directory behind signed URLs, or S3 (any S3-compatible store). */
  STORAGE: z.enum(["local", "s3"]).default("local"),
  /** local: the directory objects are kept in (default <DATA_DIR>/storage). */
  STORAGE_DIR: env.optionalString(),
  /**
   * local: the absolute URL browsers reach the signed storage routes at. The BFF forwards
   * /api/v1/storage/* to media unchanged, so this is the BFF's origin + /api/v1/storage.
   */
  STORAGE_PUBLIC_URL: env.httpUrl().default("http://localhost:8080/api/v1/storage"),
  /** local: HMAC secret of the signed URLs (>= 32 bytes); generated and kept under DATA_DIR when unset. */
  STORAGE_SIGNING_SECRET: env.optionalString(),

  /** s3: bucket, region, endpoint (unset for AWS), path-style addressing (MinIO), credentials. */
  S3_BUCKET: env.optionalString(),
  S3_REGION: z.string().default("us-east-1"),
  S3_ENDPOINT: env.optionalHttpUrl(),
  /** s3: the endpoint presigned URLs name when browsers reach the store at another address. */
  S3_PUBLIC_ENDPOINT: env.optionalHttpUrl(),
  S3_FORCE_PATH_STYLE: env.boolean(false),
  S3_ACCESS_KEY_ID: env.optionalString(),
  S3_SECRET_ACCESS_KEY: env.optionalString(),
  /**
   * s3: bearer token the bucket's webhook notifications must carry
   * (POST /storage/notifications); the endpoint is off when unset.
   */
  STORAGE_NOTIFICATION_TOKEN: env.optionalString(),

  /** docs/requirements.md "Validation": at most 100 MB per file. */
  MEDIA_MAX_FILE_BYTES: env.positiveInt(100 * MB),
  /** Longest audio accepted after probing (seconds); guards disk and CPU, spec is silent. */
  MEDIA_MAX_DURATION_SECONDS: env.positiveInt(6 * 60 * 60),
  /**
   * Streams (audio, video, subtitle, data) a file may contain; more is refused before it
   * is decoded. Recordings have a handful; thousands of tiny ones only cost parsing time.
   */
  MEDIA_MAX_STREAMS: env.positiveInt(32),
  /** Lifetime of an upload URL: the PUT must start before it ends. */
  MEDIA_UPLOAD_URL_TTL_SECONDS: env.positiveInt(15 * 60),
  /** Lifetime of an audio URL handed to the player. */
  MEDIA_AUDIO_URL_TTL_SECONDS: env.positiveInt(60 * 60),
  /** Largest chunk of processed audio, in bytes: below Groq's 25 MB per request. */
  MEDIA_CHUNK_MAX_BYTES: env.positiveInt(24 * 1000 * 1000),
  /** Seconds shared by consecutive chunks so no word is cut at a boundary. */
  MEDIA_CHUNK_OVERLAP_SECONDS: z.coerce.number().min(0).max(60).default(2),
  /** Files processed at the same time by one replica. */
  MEDIA_PROCESSING_CONCURRENCY: env.positiveInt(1),
  /** Scratch space for probing and transcoding (default <tmp>/transcribe-media). */
  MEDIA_WORK_DIR: env.optionalString(),

  /** URL import: whole-transfer deadline, and CIDRs allowed despite being private (intranet installs, tests). */
  MEDIA_IMPORT_TIMEOUT_MS: env.positiveInt(5 * 60 * 1000),
  MEDIA_IMPORT_ALLOW_CIDRS: z
    .string()
    .default("")
    .transform((value) => value.split(",").map((s) => s.trim()).filter((s) => s.length > 0)),

  /** Unset: a working system binary, else the one bundled in the npm package (processing/ffmpeg-binaries.ts). */
  FFMPEG_PATH: env.optionalString(),
  FFPROBE_PATH: env.optionalString(),
});

export type MediaConfig = z.infer<typeof mediaConfigSchema>;
