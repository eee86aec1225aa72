import { formatInfo, type ExportFormat } from "./formats.js";

/** UTF-8 bytes for the base name: under every file system's 255-byte limit with room for the extension. */
export const MAX_BASE_NAME_BYTES = 180;
export const FALLBACK_BASE_NAME = "transcript";

// The upload formats (docs/requirements.md "Validation"): a display name that is still the uploaded file's name
// loses that extension, so "talk.mp3" exports as "talk.pdf", not "talk.mp3.pdf".
const MEDIA_EXTENSION = /\.(mp3|wav|m4a|mp4|flac|ogg|oga|opus|webm|mpeg|mpga|aac|mov|mkv)$/i;
// Windows refuses these as a name before the first dot, whatever the extension.
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$/i;

let graphemes: Intl.Segmenter | undefined;

/**
 * The download's file name for a transcript: its display name made safe for Windows,
 * macOS and Linux, plus the format's extension. Non-ASCII letters are kept (the
 * Content-Disposition header carries them with RFC 5987); what no file system or
 * browser accepts is replaced or removed:
 *
 * - control characters, and bidi controls (which can make "txt.exe" look like "exe.txt");
 * - `< > : " / \ | ? *` → `_`;
 * - leading dots and spaces (hidden files), trailing dots and spaces (Windows drops them);
 * - Windows device names (CON, NUL, COM1, ...) get a `_`;
 * - at most 180 UTF-8 bytes before the extension, cut between graphemes.
 */
export function exportFileName(displayName: string, format: ExportFormat): string {
  return `${safeBaseName(displayName)}.${formatInfo[format].extension}`;
}

export function safeBaseName(displayName: string): string {
  let name = displayName
    .normalize("NFC")
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "")
    .replace(/\s+/gu, " ")
    .replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, "")
    .replace(/[<>:"/\\|?*]/g, "_")
    .trim()
    .replace(MEDIA_EXTENSION, "");
  name = truncateUtf8(name, MAX_BASE_NAME_BYTES).replace(/^[.\s]+/u, "").replace(/[.\s]+$/u, "");
  if (!name) return FALLBACK_BASE_NAME;
  const stem = name.split(".")[0]!.trim();
  if (WINDOWS_RESERVED.test(stem)) name = `${stem}_${name.slice(stem.length)}`;
  return name;
}

function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) return text;
  graphemes ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let result = "";
  let bytes = 0;
  for (const { segment } of graphemes.segment(text)) {
    const size = Buffer.byteLength(segment, "utf8");
    if (bytes + size > maxBytes) break;
    result += segment;
    bytes += size;
  }
  return result;
}
