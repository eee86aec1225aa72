import { formatDate, formatDuration } from "./time.js";
import type { Transcript } from "./transcript.js";

let languageNames: Intl.DisplayNames | undefined;

/** "German (de)"; the bare code when it is not one Intl knows. */
export function describeLanguage(code: string): string {
  try {
    languageNames ??= new Intl.DisplayNames(["en"], { type: "language" });
    const name = languageNames.of(code);
    return name && name !== code ? `${name} (${code})` : code;
  } catch {
    return code;
  }
}

/** The facts the docx and pdf headers list under the title, in order; absent ones are left out. */
export function metadataLines(transcript: Transcript): Array<{ label: string; value: string }> {
  const lines: Array<{ label: string; value: string }> = [];
  if (transcript.sourceFileName) lines.push({ label: "Source file", value: transcript.sourceFileName });
  if (transcript.language) lines.push({ label: "Language", value: describeLanguage(transcript.language) });
  if (transcript.model) lines.push({ label: "Model", value: transcript.model });
  if (transcript.createdAt) lines.push({ label: "Date", value: formatDate(transcript.createdAt) });
  lines.push({ label: "Duration", value: formatDuration(transcript.duration) });
  return lines;
}
