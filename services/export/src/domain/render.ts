import { renderDocx } from "./docx.js";
import type { FontSet } from "./fonts.js";
import { formatInfo, type ExportFormat } from "./formats.js";
import { renderJson } from "./json.js";
import { renderPdf } from "./pdf.js";
import { renderRttm } from "./rttm.js";
import { renderSrt, renderVtt } from "./subtitles.js";
import type { RenderOptions, Transcript } from "./transcript.js";
import { renderTxt } from "./txt.js";

export interface RenderedExport {
  data: Buffer;
  contentType: string;
  /** Characters drawn without a glyph (pdf only). */
  missingGlyphs: string[];
}

/** Renders a transcript in one format; everything a format needs beyond the transcript comes in `context`. */
export async function renderExport(
  transcript: Transcript,
  format: ExportFormat,
  options: RenderOptions,
  context: { fonts: FontSet },
): Promise<RenderedExport> {
  const { contentType } = formatInfo[format];
  const text = (value: string): RenderedExport => ({ data: Buffer.from(value, "utf8"), contentType, missingGlyphs: [] });
  switch (format) {
    case "txt":
      return text(renderTxt(transcript, options));
    case "srt":
      return text(renderSrt(transcript));
    case "vtt":
      return text(renderVtt(transcript));
    case "json":
      return text(renderJson(transcript));
    case "rttm":
      return text(renderRttm(transcript));
    case "docx":
      return { data: await renderDocx(transcript, options), contentType, missingGlyphs: [] };
    case "pdf": {
      const pdf = await renderPdf(transcript, { ...options, fonts: context.fonts });
      return { data: pdf.data, contentType, missingGlyphs: pdf.missingGlyphs };
    }
  }
}
