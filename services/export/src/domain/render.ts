import type { FontSet } from "./fonts.js";
import { type ExportFormat, type FormatDefinition, formats } from "./formats.js";
import type { RenderOptions, Transcript } from "./transcript.js";

export interface RenderedExport {
  data: Buffer;
  contentType: string;
  /** Characters drawn without a glyph (pdf only). */
  missingGlyphs: string[];
}

/** Renders a transcript in one format of the registry (formats.ts). */
export async function renderExport(
  transcript: Transcript,
  format: ExportFormat,
  options: RenderOptions,
  context: { fonts: FontSet },
): Promise<RenderedExport> {
  const { contentType, render }: FormatDefinition = formats[format];
  const rendered = await render(transcript, options, context);
  if (typeof rendered === "string") return { data: Buffer.from(rendered, "utf8"), contentType, missingGlyphs: [] };
  return { data: rendered.data, contentType, missingGlyphs: rendered.missingGlyphs ?? [] };
}
