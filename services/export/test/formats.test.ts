import { ExportFormatSchema } from "@transcribe/proto/export/v1/export";
import { describe, expect, it } from "vitest";
import { exportFileName, exportFormats, formats, isExportFormat, renderExport } from "../src/domain/index.js";
import { fixtureTranscript } from "./fixtures/transcript.js";
import { inCi, machineFonts } from "./helpers.js";

/**
 * The export format registry (domain/formats.ts, decision 0036) and the parts a format
 * needs elsewhere: a proto enum value (the RPC mapping and the BFF's OpenAPI enum read its
 * name), an extension, a content type and a renderer that writes something. A format added
 * only in part fails here; the SPA's label is checked by web/test/export-labels.test.ts and
 * the whole path (RPC, database row, download) by test/service.test.ts.
 */

const protoFormats = ExportFormatSchema.values.filter((v) => v.number !== 0).map((v) => v.localName.toLowerCase());
const fonts = machineFonts();

describe("the export format registry", () => {
  it("has exactly the proto enum's formats", () => {
    expect(exportFormats.length).toBeGreaterThanOrEqual(7);
    expect([...exportFormats].sort()).toEqual([...protoFormats].sort());
    for (const name of protoFormats) expect(isExportFormat(name), name).toBe(true);
    expect(isExportFormat("toString")).toBe(false);
  });

  it("gives every format an extension, a content type and a file name with that extension", () => {
    for (const format of exportFormats) {
      const { extension, contentType } = formats[format];
      expect(extension, format).toMatch(/^[a-z0-9]+$/);
      expect(contentType, format).toMatch(/^[a-z]+\/[\w.+-]+(; charset=utf-8)?$/);
      expect(exportFileName("Talk", format)).toBe(`Talk.${extension}`);
    }
  });

  it.skipIf(!fonts && !inCi)("renders the fixture transcript in every format, in that format's content type", async () => {
    const withTurns = { ...fixtureTranscript, speakerTurns: [{ start: 0, end: 2.5, speaker: "Alice" }, { start: 2.5, end: 4, speaker: "Bob" }] };
    for (const format of exportFormats) {
      const rendered = await renderExport(withTurns, format, { includeTimestamps: true }, { fonts: fonts! });
      expect(rendered.contentType, format).toBe(formats[format].contentType);
      expect(rendered.data.length, format).toBeGreaterThan(0);
      expect(rendered.missingGlyphs, format).toEqual([]);
    }
  });
});
