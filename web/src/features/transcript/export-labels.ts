import type { ExportRequest } from "../../lib/api/generated/zod.gen";

type ExportFormat = ExportRequest["format"];

/**
 * The SPA's option for each export format. The formats are the API's (its OpenAPI enum
 * follows the export service's registry, decision 0036); the menu offers them in this
 * order, and test/export-labels.test.ts fails when a format of the API has no label here.
 */
export const EXPORT_LABELS: Record<ExportFormat, string> = {
  txt: "Text (.txt)",
  docx: "Word (.docx)",
  pdf: "PDF (.pdf)",
  srt: "Subtitles (.srt)",
  vtt: "WebVTT (.vtt)",
  json: "JSON (.json)",
  rttm: "RTTM speaker turns (.rttm)",
};

/** Formats made of the speaker turns: offered only for a transcript that has them. */
export const SPEAKER_FORMATS: ReadonlySet<ExportFormat> = new Set(["rttm"]);

export type { ExportFormat };

export const EXPORT_MENU_FORMATS = Object.keys(EXPORT_LABELS) as ExportFormat[];
