import { ExportFormatSchema } from "@transcribe/proto/export/v1/export";
import { ProviderSchema } from "@transcribe/proto/transcription/v1/transcription";
import { beforeAll, describe, expect, it } from "vitest";
import { type OpenApiDocument, servedDocument } from "./document.js";

/**
 * The document's provider and export format enums are the proto enums' names, which the
 * transcription service's provider registry and the export service's format registry
 * match value for value (their tests check that side): a provider or format added to the
 * registry and the .proto is in the API with no list of the BFF's to update
 * (docs/extending.md, "Adding a speech provider", "Adding an export format").
 */
const namesOf = (schema: typeof ProviderSchema | typeof ExportFormatSchema) => schema.values.filter((v) => v.number !== 0).map((v) => v.localName.toLowerCase());

type Schema = { properties: Record<string, { enum?: Array<string | null>; anyOf?: Array<{ enum?: Array<string | null> }> }> };
/** The property's names; a request body's optional field also lists null, which means "absent" (docs/api.md, "Request bodies"). */
const enumOf = (document: OpenApiDocument, schema: string, property: string) => {
  const found = (document.components.schemas as unknown as Record<string, Schema>)[schema]?.properties[property];
  return (found?.enum ?? found?.anyOf?.find((s) => s.enum)?.enum)?.filter((name) => name !== null);
};

describe("the OpenAPI document's extension-point enums", () => {
  let document: OpenApiDocument;
  beforeAll(async () => {
    ({ document } = await servedDocument({ PUBLIC_BASE_URL: "https://transcribe.example.org", NODE_ENV: "production" }));
  });

  it("names every speech provider of the proto enum, in its order", () => {
    const providers = namesOf(ProviderSchema);
    expect(providers).toEqual(expect.arrayContaining(["local", "groq", "elevenlabs"]));
    expect(enumOf(document, "Model", "provider")).toEqual(providers);
    expect(enumOf(document, "TranscriptionSettings", "provider")).toEqual(providers);
  });

  it("names every export format of the proto enum, in its order", () => {
    const formats = namesOf(ExportFormatSchema);
    expect(formats).toEqual(expect.arrayContaining(["txt", "docx", "pdf", "srt", "vtt", "json", "rttm"]));
    expect(enumOf(document, "ExportRequest", "format")).toEqual(formats);
    expect(enumOf(document, "ExportResponse", "format")).toEqual(formats);
  });
});
