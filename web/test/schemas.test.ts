import { describe, expect, it } from "vitest";
import {
  MAX_UPLOAD_BYTES,
  renameRequestSchema,
  startTranscriptionRequestSchema,
  transcriptionListItemSchema,
  transcriptionSettingsSchema,
  trialLimitsSchema,
  uploadRequestSchema,
} from "../src/lib/api/schemas";

const messagesOf = (result: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  result.success ? [] : result.error!.issues.map((i) => i.message);

describe("upload rules (docs/requirements.md: Validation)", () => {
  const valid = { fileName: "talk.mp3", fileSize: 1024, contentType: "audio/mpeg", duration: 12.5 };

  it("accepts every allowed type up to exactly 100 MB", () => {
    for (const contentType of ["audio/mpeg", "audio/wav", "audio/x-wav", "audio/mp4", "audio/x-m4a", "audio/flac", "audio/ogg", "audio/webm", "video/mp4", "video/webm"]) {
      expect(uploadRequestSchema.safeParse({ ...valid, contentType }).success, contentType).toBe(true);
    }
    expect(uploadRequestSchema.safeParse({ ...valid, fileSize: MAX_UPLOAD_BYTES }).success).toBe(true);
    expect(MAX_UPLOAD_BYTES).toBe(104_857_600);
  });

  it("refuses with the spec's exact messages", () => {
    expect(messagesOf(uploadRequestSchema.safeParse({ ...valid, fileSize: 0 }))).toEqual(["File cannot be empty"]);
    expect(messagesOf(uploadRequestSchema.safeParse({ ...valid, fileSize: MAX_UPLOAD_BYTES + 1 }))).toEqual(["File too large (max 100MB)"]);
    expect(messagesOf(uploadRequestSchema.safeParse({ ...valid, fileName: "talk" }))).toEqual(["Filename must have an extension"]);
    const [typeMessage] = messagesOf(uploadRequestSchema.safeParse({ ...valid, contentType: "text/plain" }));
    expect(typeMessage).toBe(
      "Invalid file type. Allowed types: audio/mpeg, audio/wav, audio/x-wav, audio/mp4, audio/x-m4a, audio/flac, audio/ogg, audio/webm, video/mp4, video/webm",
    );
    expect(uploadRequestSchema.safeParse({ ...valid, duration: 0 }).success).toBe(false);
  });
});

describe("transcription settings (docs/requirements.md: Entities, Validation)", () => {
  const base = { provider: "groq", model: "whisper-large-v3", responseFormat: "verbose_json", timestampGranularities: ["segment"], language: "de" };

  it("defaults temperature to 0 and translation to off", () => {
    const parsed = transcriptionSettingsSchema.parse(base);
    expect(parsed.temperature).toBe(0);
    expect(parsed.translateToEn).toBe(false);
  });

  it("requires a language, refuses English to English, bounds temperature, needs a granularity", () => {
    expect(messagesOf(transcriptionSettingsSchema.safeParse({ ...base, language: "" }))).toEqual(["Please select a language"]);
    expect(messagesOf(transcriptionSettingsSchema.safeParse({ ...base, language: "en", translateToEn: true }))).toEqual([
      "Cannot translate English to English",
    ]);
    expect(transcriptionSettingsSchema.safeParse({ ...base, language: "de", translateToEn: true }).success).toBe(true);
    expect(transcriptionSettingsSchema.safeParse({ ...base, temperature: 1.01 }).success).toBe(false);
    expect(transcriptionSettingsSchema.safeParse({ ...base, temperature: -0.1 }).success).toBe(false);
    expect(transcriptionSettingsSchema.safeParse({ ...base, timestampGranularities: [] }).success).toBe(false);
  });

  it("applies the same rules to the start request", () => {
    const start = (settings: object) => startTranscriptionRequestSchema.safeParse({ fileId: "f", settings });
    expect(messagesOf(start({ model: "whisper-large-v3", language: " " }))).toEqual(["Please select a language"]);
    expect(messagesOf(start({ model: "whisper-large-v3", language: "en", translateToEn: true }))).toEqual(["Cannot translate English to English"]);
  });
});

describe("rename (docs/requirements.md: Validation)", () => {
  it("trims, refuses empty and more than 255 characters", () => {
    expect(renameRequestSchema.parse({ newName: "  Interview  " })).toEqual({ newName: "Interview" });
    expect(messagesOf(renameRequestSchema.safeParse({ newName: "   " }))).toEqual(["Name cannot be empty"]);
    expect(renameRequestSchema.safeParse({ newName: "a".repeat(255) }).success).toBe(true);
    expect(messagesOf(renameRequestSchema.safeParse({ newName: "a".repeat(256) }))).toEqual(["Name is too long"]);
  });
});

describe("responses", () => {
  it("list items never carry the deleted status; limits are non-negative integers", () => {
    const item = { id: "1", displayName: "a", duration: 0, model: "m", status: "completed", uploadedAt: "2026-01-01T00:00:00Z" };
    expect(transcriptionListItemSchema.safeParse(item).success).toBe(true);
    expect(transcriptionListItemSchema.safeParse({ ...item, status: "deleted" }).success).toBe(false);
    expect(trialLimitsSchema.safeParse({ usedTotal: 1, totalLimit: 60, tier: "free" }).success).toBe(true);
    expect(trialLimitsSchema.safeParse({ usedTotal: -1, totalLimit: 60, tier: "free" }).success).toBe(false);
    expect(trialLimitsSchema.safeParse({ usedTotal: 1, totalLimit: 60, tier: "gold" }).success).toBe(false);
  });
});
