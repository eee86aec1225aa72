import { contentTypeForFileName, fileExtension, normalizeUploadContentType, UPLOAD_CONTENT_TYPES, type UploadContentType } from "@transcribe/platform";

/**
 * The media type an API upload is declared with. OpenAI's clients label parts loosely
 * (application/octet-stream, audio/x-wav, audio/mpga), so the file name's extension
 * decides when the label is not one media accepts; media then probes the bytes anyway.
 * The content type to declare, or undefined when neither the label nor the name says
 * (media's refusal then names the allowed types).
 */
export function declaredContentType(fileName: string, label: string): UploadContentType | undefined {
  return contentTypeForFileName(fileName) ?? normalizeUploadContentType(label);
}

/** Media wants a name with an extension; a bare "blob" gets the one of its type. */
export function declaredFileName(fileName: string, contentType: string): string {
  const trimmed = fileName.trim().slice(0, 200) || "upload";
  return fileExtension(trimmed) ? trimmed : `${trimmed}.${UPLOAD_CONTENT_TYPES[contentType as UploadContentType] ?? "bin"}`;
}
