import { renderDocx } from "./docx.js";
import type { FontSet } from "./fonts.js";
import { renderJson } from "./json.js";
import { renderPdf } from "./pdf.js";
import { renderRttm } from "./rttm.js";
import { renderSrt, renderVtt } from "./subtitles.js";
import type { RenderOptions, Transcript } from "./transcript.js";
import { renderTxt } from "./txt.js";

/** A format's output: text (UTF-8) or bytes, and characters drawn without a glyph (pdf only). */
export type Rendered = string | { data: Buffer; missingGlyphs?: string[] };

export interface FormatDefinition {
  readonly extension: string;
  readonly contentType: string;
  /** Renders a transcript; everything a format needs beyond the transcript comes in `context`. */
  render(transcript: Transcript, options: RenderOptions, context: { fonts: FontSet }): Rendered | Promise<Rendered>;
}

/**
 * The registry of export formats (decision 0036): the one place a format is defined. The
 * proto `ExportFormat` enum has an EXPORT_FORMAT_<NAME> value for each (the RPC mapping and
 * the BFF's OpenAPI enum read those names), and the SPA has a label for each
 * (web/src/features/transcript/export-labels.ts). docs/extending.md, "Adding an export
 * format", is the recipe; test/formats.test.ts fails on a format added only in part.
 */
export const formats = {
  txt: { extension: "txt", contentType: "text/plain; charset=utf-8", render: (t, options) => renderTxt(t, options) },
  docx: {
    extension: "docx",
    contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    render: async (t, options) => ({ data: await renderDocx(t, options) }),
  },
  pdf: {
    extension: "pdf",
    contentType: "application/pdf",
    render: (t, options, context) => renderPdf(t, { ...options, fonts: context.fonts }),
  },
  // No registered type exists; application/x-subrip is what players and browsers know.
  srt: { extension: "srt", contentType: "application/x-subrip; charset=utf-8", render: (t) => renderSrt(t) },
  vtt: { extension: "vtt", contentType: "text/vtt; charset=utf-8", render: (t) => renderVtt(t) },
  json: { extension: "json", contentType: "application/json; charset=utf-8", render: (t) => renderJson(t) },
  // No registered type; plain text is what diarization scoring tools read.
  rttm: { extension: "rttm", contentType: "text/plain; charset=utf-8", render: (t) => renderRttm(t) },
} as const satisfies Record<string, FormatDefinition>;

export type ExportFormat = keyof typeof formats;
export const exportFormats = Object.keys(formats) as ExportFormat[];

/** Each format's file extension and content type. */
export const formatInfo: Readonly<Record<ExportFormat, FormatDefinition>> = formats;

export function isExportFormat(value: string): value is ExportFormat {
  return Object.hasOwn(formats, value);
}

/** "txt, docx or pdf": the formats as a sentence names them. */
export function exportFormatsText(): string {
  return `${exportFormats.slice(0, -1).join(", ")} or ${exportFormats.at(-1)}`;
}
