/**
 * The media types an upload may be declared with, each with the extension its raw object
 * gets; the order is the order a refusal lists them in (the media service's rules, the
 * BFF's developer API). One table for every service that names or guesses an upload's type.
 */
export const UPLOAD_CONTENT_TYPES = {
  "audio/mpeg": "mp3",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/mp4": "m4a",
  "audio/x-m4a": "m4a",
  "audio/flac": "flac",
  "audio/ogg": "ogg",
  "audio/webm": "webm",
  "video/mp4": "mp4",
  "video/webm": "webm",
} as const;
export type UploadContentType = keyof typeof UPLOAD_CONTENT_TYPES;

/**
 * The type a file name's extension stands for, used only where nothing better says (a
 * server answering "binary", a client labelling a part application/octet-stream); media
 * probes the bytes either way. `.webm` is video/webm, the container's registered type (it
 * may hold audio only: `.weba` names that case).
 */
const BY_EXTENSION: Readonly<Record<string, UploadContentType>> = {
  mp3: "audio/mpeg",
  mpga: "audio/mpeg",
  mpeg: "audio/mpeg",
  wav: "audio/wav",
  m4a: "audio/mp4",
  flac: "audio/flac",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  weba: "audio/webm",
  webm: "video/webm",
  mp4: "video/mp4",
};

/** A file name's extension, lower-cased ("" when it has none). */
export function fileExtension(fileName: string): string {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(fileName);
  return match ? match[1]!.toLowerCase() : "";
}

/** The upload type a file name's extension stands for, or undefined. */
export function contentTypeForFileName(fileName: string): UploadContentType | undefined {
  return BY_EXTENSION[fileExtension(fileName)];
}

/** The upload type a declared value stands for (case and parameters ignored), or undefined. */
export function normalizeUploadContentType(value: string): UploadContentType | undefined {
  const bare = value.split(";")[0]?.trim().toLowerCase() ?? "";
  return Object.hasOwn(UPLOAD_CONTENT_TYPES, bare) ? (bare as UploadContentType) : undefined;
}
