/**
 * The media type an API upload is declared with. OpenAI's clients label parts loosely
 * (application/octet-stream, audio/x-wav, audio/mpga), so the file name's extension
 * decides when the label is not one media accepts; media then probes the bytes anyway.
 */
const BY_EXTENSION: Record<string, string> = {
  mp3: "audio/mpeg",
  mpga: "audio/mpeg",
  mpeg: "audio/mpeg",
  wav: "audio/wav",
  m4a: "audio/mp4",
  flac: "audio/flac",
  ogg: "audio/ogg",
  oga: "audio/ogg",
  opus: "audio/ogg",
  webm: "audio/webm",
  mp4: "video/mp4",
};

const ACCEPTED = new Set(["audio/mpeg", "audio/wav", "audio/x-wav", "audio/mp4", "audio/x-m4a", "audio/flac", "audio/ogg", "audio/webm", "video/mp4", "video/webm"]);

const EXTENSION_OF: Record<string, string> = { "audio/mpeg": "mp3", "audio/wav": "wav", "audio/x-wav": "wav", "audio/mp4": "m4a", "audio/x-m4a": "m4a", "audio/flac": "flac", "audio/ogg": "ogg", "audio/webm": "webm", "video/mp4": "mp4", "video/webm": "webm" };

function extensionOf(fileName: string): string {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(fileName);
  return match ? match[1]!.toLowerCase() : "";
}

/** The content type to declare, or undefined when neither the label nor the name says (media's refusal then names the allowed types). */
export function declaredContentType(fileName: string, label: string): string | undefined {
  const fromName = BY_EXTENSION[extensionOf(fileName)];
  const normalized = label.split(";")[0]!.trim().toLowerCase();
  if (fromName) return fromName;
  return ACCEPTED.has(normalized) ? normalized : undefined;
}

/** Media wants a name with an extension; a bare "blob" gets the one of its type. */
export function declaredFileName(fileName: string, contentType: string): string {
  const trimmed = fileName.trim().slice(0, 200) || "upload";
  return extensionOf(trimmed) ? trimmed : `${trimmed}.${EXTENSION_OF[contentType] ?? "bin"}`;
}
