import { ExportFormatSchema } from "@transcribe/proto/export/v1/export";
import { describe, expect, it } from "vitest";
import { EXPORT_LABELS, EXPORT_MENU_FORMATS } from "../src/features/transcript/export-labels";

/**
 * The export formats the API offers are the proto enum's names (the BFF's OpenAPI enum is
 * made from them, and the export service's registry has one entry per value). Adding a
 * format without its menu option here fails this test (docs/extending.md, "Adding an
 * export format").
 */
const apiFormats = ExportFormatSchema.values.filter((value) => value.number !== 0).map((value) => value.localName.toLowerCase());

describe("the export menu's options", () => {
  it("has a label for every format of the API, and none the API lacks", () => {
    expect(apiFormats.length).toBeGreaterThanOrEqual(7);
    expect([...EXPORT_MENU_FORMATS].sort()).toEqual([...apiFormats].sort());
    for (const format of apiFormats) expect(EXPORT_LABELS[format as keyof typeof EXPORT_LABELS], format).toMatch(/\S/);
  });
});
