import { AppError, contentTypeForFileName, normalizeUploadContentType, UPLOAD_CONTENT_TYPES } from "@transcribe/platform";

/**
 * docs/requirements.md "Validation": the types an upload may declare, each with the extension its raw object
 * gets (the platform's table, shared with the BFF).
 */
export const ALLOWED_CONTENT_TYPES = UPLOAD_CONTENT_TYPES;
export type AllowedContentType = keyof typeof ALLOWED_CONTENT_TYPES;

export const MB = 1024 * 1024;

/** Every message a person may read, word for word from docs/requirements.md "Validation" where the spec has one. */
export const messages = {
  fileEmpty: "File cannot be empty",
  /**
   * docs/requirements.md "Validation" notes that the shared size rule ("File too large. Maximum size is ...")
   * computes its unit text in gigabytes and is misleading; the server states the
   * configured limit in MB, in the upload form's words, so both say the same thing.
   */
  fileTooLarge: (maxBytes: number) => `File too large (max ${formatMegabytes(maxBytes)}MB)`,
  invalidFileType: `Invalid file type. Allowed types: ${Object.keys(ALLOWED_CONTENT_TYPES).join(", ")}`,
  fileNameExtension: "Filename must have an extension",
  fileNameRequired: "File name is required",
  fileNameTooLong: "File name is too long (max 255 characters)",
  durationPositive: "Duration must be a positive number of seconds",
  userRequired: "user_id is required",
  fileNotFound: "File not found",
  // Refusals after the bytes arrived (the record turns FAILED with one of these).
  notMedia: "The file is not a valid audio or video file",
  noAudio: "The file has no audio track",
  damaged: "The file is damaged or incomplete",
  silentEmpty: "The file contains no audio",
  sizeMismatch: (stored: number, declared: number) =>
    `The uploaded file is ${stored} bytes but ${declared} bytes were declared`,
  tooLong: (maxSeconds: number) => `Audio longer than ${formatDuration(maxSeconds)} is not supported`,
  tooManyStreams: (maxStreams: number) => `The file has too many tracks (at most ${maxStreams} are supported)`,
  notReceived: "The upload was not received before its link expired",
  processingFailed: "The file could not be processed; please upload it again",
} as const;

export interface UploadLimits {
  maxFileBytes: number;
}

export interface DeclaredUpload {
  fileName: string;
  fileSize: number;
  contentType: string;
  duration: number;
}

const MAX_FILE_NAME_LENGTH = 255;

/**
 * docs/requirements.md "Validation", in the order a person fixes things: the name, the size, the type, the
 * duration. Returns the normalised declaration or throws the first rule broken.
 */
export function checkDeclaredUpload(input: DeclaredUpload, limits: UploadLimits): DeclaredUpload & { contentType: AllowedContentType } {
  const fileName = input.fileName.trim();
  if (fileName.length === 0) throw invalid(messages.fileNameRequired);
  if (fileName.length > MAX_FILE_NAME_LENGTH) throw invalid(messages.fileNameTooLong);
  if (!hasExtension(fileName)) throw invalid(messages.fileNameExtension);
  checkSize(input.fileSize, limits);
  const contentType = normalizeContentType(input.contentType);
  if (!contentType) throw invalid(messages.invalidFileType);
  if (!Number.isFinite(input.duration) || input.duration <= 0) throw invalid(messages.durationPositive);
  return { fileName, fileSize: input.fileSize, contentType, duration: input.duration };
}

export function checkSize(size: number, limits: UploadLimits): void {
  if (!Number.isInteger(size) || size <= 0) throw invalid(messages.fileEmpty);
  if (size > limits.maxFileBytes) throw invalid(messages.fileTooLarge(limits.maxFileBytes));
}

/** "a.mp3" yes; "a", "a.", ".mp3" (a hidden file with no name) no. */
export function hasExtension(fileName: string): boolean {
  const base = fileName.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 && dot < base.length - 1 && /^[A-Za-z0-9]+$/.test(base.slice(dot + 1));
}

/** The allowed type a declared value stands for (case and parameters ignored), or undefined. */
export const normalizeContentType = normalizeUploadContentType;

/** The type an import gets from a URL's extension when the server says only "binary". */
export const contentTypeForExtension = contentTypeForFileName;

// ---- object keys ---------------------------------------------------------------------

/**
 * Every object of one file lives under one prefix, so deleting a file is one prefix
 * delete and an orphan is recognisable by its file id.
 */
export const keys = {
  prefix: (fileId: string) => `media/${fileId}/`,
  raw: (fileId: string, contentType: AllowedContentType) => `media/${fileId}/raw.${ALLOWED_CONTENT_TYPES[contentType]}`,
  processed: (fileId: string) => `media/${fileId}/audio-16k-mono.wav`,
  /** Index and start offset (ms) are in the name, so a worker can place each chunk's timestamps. */
  chunk: (fileId: string, index: number, startMs: number) =>
    `media/${fileId}/chunks/${String(index).padStart(3, "0")}_${startMs}ms.wav`,
  /** The file id a key belongs to, if it is one of ours. */
  fileIdOf(key: string): string | undefined {
    return /^media\/([0-9a-f-]{36})\//.exec(key)?.[1];
  },
};

/** Parses a chunk key back into its index and start offset (ms). */
export function parseChunkKey(key: string): { index: number; startMs: number } | undefined {
  const match = /\/chunks\/(\d+)_(\d+)ms\.wav$/.exec(key);
  return match ? { index: Number(match[1]), startMs: Number(match[2]) } : undefined;
}

// ---- processed audio and chunks --------------------------------------------------------

/** The processed audio: 16 kHz, mono, 16-bit PCM in WAV, which every speech engine takes. */
export const PROCESSED = { sampleRate: 16_000, channels: 1, bytesPerSample: 2, wavHeaderBytes: 44 } as const;
export const PROCESSED_BYTES_PER_SECOND = PROCESSED.sampleRate * PROCESSED.channels * PROCESSED.bytesPerSample;

export interface ChunkSpan {
  index: number;
  /** Seconds from the start of the processed audio. */
  start: number;
  end: number;
}

/**
 * Splits `duration` seconds into overlapping spans, each small enough that its WAV
 * (header included) fits in `maxBytes`. Audio that fits in one span is not split (no
 * spans). Each span starts `overlap` seconds before the previous one ended.
 */
export function planChunks(duration: number, options: { maxBytes: number; overlapSeconds: number }): ChunkSpan[] {
  const spanSeconds = Math.floor((options.maxBytes - PROCESSED.wavHeaderBytes) / PROCESSED_BYTES_PER_SECOND);
  if (spanSeconds <= options.overlapSeconds) {
    throw new Error(`MEDIA_CHUNK_MAX_BYTES allows ${spanSeconds} s per chunk, not more than the overlap`);
  }
  if (duration <= spanSeconds) return [];
  const spans: ChunkSpan[] = [];
  for (let start = 0; ; ) {
    const end = Math.min(start + spanSeconds, duration);
    spans.push({ index: spans.length, start, end });
    if (end >= duration) return spans;
    start = end - options.overlapSeconds;
  }
}

// ---- helpers ---------------------------------------------------------------------------

function invalid(message: string): AppError {
  return new AppError("invalid_argument", message);
}

function formatMegabytes(bytes: number): string {
  const mb = bytes / MB;
  return Number.isInteger(mb) ? String(mb) : String(Math.round(mb * 100) / 100);
}

function formatDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? "" : "s"}`;
  if (seconds % 60 === 0) return `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}
