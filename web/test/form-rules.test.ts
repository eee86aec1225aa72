import { describe, expect, it } from "vitest";
import { zTranscriptionListItem, zTrialLimits } from "../src/lib/api/generated/zod.gen";
import { MAX_UPLOAD_BYTES, renameFormSchema, speakerNameSchema, transcriptionChoiceSchema, uploadFormSchema } from "../src/lib/form-rules";

const messagesOf = (result: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  result.success ? [] : result.error!.issues.map((i) => i.message);

describe("upload rules (docs/requirements.md, Validation)", () => {
  const valid = { fileName: "talk.mp3", fileSize: 1024, contentType: "audio/mpeg", duration: 12.5 };

  it("accepts every allowed type up to exactly 100 MB", () => {
    for (const contentType of ["audio/mpeg", "audio/wav", "audio/x-wav", "audio/mp4", "audio/x-m4a", "audio/flac", "audio/ogg", "audio/webm", "video/mp4", "video/webm"]) {
      expect(uploadFormSchema.safeParse({ ...valid, contentType }).success, contentType).toBe(true);
    }
    expect(uploadFormSchema.safeParse({ ...valid, fileSize: MAX_UPLOAD_BYTES }).success).toBe(true);
    expect(MAX_UPLOAD_BYTES).toBe(104_857_600);
  });

  it("refuses with the spec's exact messages", () => {
    expect(messagesOf(uploadFormSchema.safeParse({ ...valid, fileSize: 0 }))).toEqual(["File cannot be empty"]);
    expect(messagesOf(uploadFormSchema.safeParse({ ...valid, fileSize: MAX_UPLOAD_BYTES + 1 }))).toEqual(["File too large (max 100MB)"]);
    expect(messagesOf(uploadFormSchema.safeParse({ ...valid, fileName: "talk" }))).toEqual(["Filename must have an extension"]);
    const [typeMessage] = messagesOf(uploadFormSchema.safeParse({ ...valid, contentType: "text/plain" }));
    expect(typeMessage).toBe(
      "Invalid file type. Allowed types: audio/mpeg, audio/wav, audio/x-wav, audio/mp4, audio/x-m4a, audio/flac, audio/ogg, audio/webm, video/mp4, video/webm",
    );
    expect(uploadFormSchema.safeParse({ ...valid, duration: 0 }).success).toBe(false);
  });
});

describe("the start form's choice (docs/requirements.md, Screens and Validation)", () => {
  it("requires a language and refuses English to English", () => {
    const choice = (settings: object) => transcriptionChoiceSchema.safeParse({ model: "whisper-large-v3", ...settings });
    expect(choice({ language: "de", translateToEn: true }).success).toBe(true);
    expect(messagesOf(choice({ language: " " }))).toEqual(["Please select a language"]);
    expect(messagesOf(choice({ language: "" }))).toEqual(["Please select a language"]);
    expect(messagesOf(choice({ language: "en", translateToEn: true }))).toEqual(["Cannot translate English to English"]);
  });

  it("defaults translation to off, as the API does", () => {
    const parsed = transcriptionChoiceSchema.parse({ model: "whisper-large-v3", language: "de" });
    expect(parsed.translateToEn).toBe(false);
  });
});

describe("rename (docs/requirements.md, Validation)", () => {
  it("trims, refuses empty and more than 255 characters", () => {
    expect(renameFormSchema.parse({ newName: "  Interview  " })).toEqual({ newName: "Interview" });
    expect(messagesOf(renameFormSchema.safeParse({ newName: "   " }))).toEqual(["Name cannot be empty"]);
    expect(renameFormSchema.safeParse({ newName: "a".repeat(255) }).success).toBe(true);
    expect(messagesOf(renameFormSchema.safeParse({ newName: "a".repeat(256) }))).toEqual(["Name is too long"]);
  });
});

describe("speaker and voice names (docs/api.md, PATCH …/speakers/{speaker_id})", () => {
  it("trims, refuses empty, more than 80 characters and control or bidi-control characters, as the server does", () => {
    expect(speakerNameSchema.parse("  Alice Smith \n")).toBe("Alice Smith");
    expect(speakerNameSchema.parse("Bob <the PM> & co")).toBe("Bob <the PM> & co");
    expect(messagesOf(speakerNameSchema.safeParse("   "))).toEqual(["Speaker name cannot be empty"]);
    expect(messagesOf(speakerNameSchema.safeParse("x".repeat(81)))).toEqual(["Speaker name is too long (max 80 characters)"]);
    for (const name of ["X\n\n00:00:00.000 --> 00:09:00.000\nINJECTED CUE", "Al\tice", "Al\u0007ice", "Al\u0085ice", "Alice \u202etxt.exe", "Al\u2066ice"]) {
      expect(messagesOf(speakerNameSchema.safeParse(name)), JSON.stringify(name)).toEqual(["Speaker name cannot contain line breaks, tabs or control characters"]);
    }
  });
});

describe("responses, as the generated schemas read them", () => {
  it("list items never carry the deleted status; limits are non-negative integers", () => {
    const item = { id: "1", displayName: "a", duration: 0, model: "m", status: "completed", uploadedAt: "2026-01-01T00:00:00Z" };
    expect(zTranscriptionListItem.safeParse(item).success).toBe(true);
    expect(zTranscriptionListItem.safeParse({ ...item, status: "deleted" }).success).toBe(false);
    expect(zTrialLimits.safeParse({ usedTotal: 1, totalLimit: 60, tier: "free" }).success).toBe(true);
    expect(zTrialLimits.safeParse({ usedTotal: -1, totalLimit: 60, tier: "free" }).success).toBe(false);
    expect(zTrialLimits.safeParse({ usedTotal: 1, totalLimit: 60, tier: "gold" }).success).toBe(false);
  });
});
