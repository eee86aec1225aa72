export const exportFormats = ["txt", "docx", "pdf", "srt", "vtt", "json", "rttm"] as const;
export type ExportFormat = (typeof exportFormats)[number];

export interface FormatInfo {
  extension: string;
  contentType: string;
}

export const formatInfo: Readonly<Record<ExportFormat, FormatInfo>> = {
  txt: { extension: "txt", contentType: "text/plain; charset=utf-8" },
  docx: { extension: "docx", contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
  pdf: { extension: "pdf", contentType: "application/pdf" },
  // No registered type exists; application/x-subrip is what players and browsers know.
  srt: { extension: "srt", contentType: "application/x-subrip; charset=utf-8" },
  vtt: { extension: "vtt", contentType: "text/vtt; charset=utf-8" },
  json: { extension: "json", contentType: "application/json; charset=utf-8" },
  // No registered type; plain text is what diarization scoring tools read.
  rttm: { extension: "rttm", contentType: "text/plain; charset=utf-8" },
};

export function isExportFormat(value: string): value is ExportFormat {
  return (exportFormats as readonly string[]).includes(value);
}
