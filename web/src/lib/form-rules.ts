// What the forms check before they send, with the spec's limits and exact messages
// (docs/api.md). The shapes they send are the API's, generated from its OpenAPI document
// (lib/api/generated, decision 0035); these checks only narrow them for the person typing.
import { z } from "zod";
import {
  type RenameTranscription,
  type TranscriptionSettings,
  type UploadRequest,
  zRenameTranscription,
  zTranscriptionSettings,
  zUploadRequest,
} from "./api/generated/zod.gen";

export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
export const MAX_NAME_LENGTH = 255;
export const MAX_SPEAKER_NAME_LENGTH = 80;
export const MAX_SPEAKERS = 20;

/** The media types an upload may have, with the extension each is saved under. */
export const ALLOWED_CONTENT_TYPES = {
  "audio/mpeg": ".mp3",
  "audio/wav": ".wav",
  "audio/x-wav": ".wav",
  "audio/mp4": ".m4a",
  "audio/x-m4a": ".m4a",
  "audio/flac": ".flac",
  "audio/ogg": ".ogg",
  "audio/webm": ".webm",
  "video/mp4": ".mp4",
  "video/webm": ".webm",
} as const;
export type AllowedContentType = keyof typeof ALLOWED_CONTENT_TYPES;

export const VALIDATION_MESSAGES = {
  fileEmpty: "File cannot be empty",
  fileTooLarge: "File too large (max 100MB)",
  invalidFileType: `Invalid file type. Allowed types: ${Object.keys(ALLOWED_CONTENT_TYPES).join(", ")}`,
  fileNameExtension: "Filename must have an extension",
  selectLanguage: "Please select a language",
  englishToEnglish: "Cannot translate English to English",
  nameEmpty: "Name cannot be empty",
  nameTooLong: "Name is too long",
} as const;

/** The upload form's checks of a file before it asks for an upload URL. */
export const uploadFormSchema = zUploadRequest.extend({
  fileName: z.string().regex(/\.[A-Za-z0-9]+$/, VALIDATION_MESSAGES.fileNameExtension),
  fileSize: z.number().int().positive(VALIDATION_MESSAGES.fileEmpty).max(MAX_UPLOAD_BYTES, VALIDATION_MESSAGES.fileTooLarge),
  contentType: z.enum(Object.keys(ALLOWED_CONTENT_TYPES) as [AllowedContentType, ...AllowedContentType[]], {
    error: VALIDATION_MESSAGES.invalidFileType,
  }),
  duration: z.number().positive(),
}) satisfies z.ZodType<UploadRequest>;

/** The start form's model, language and translation: a language is required, English is not translated to English. */
export const transcriptionChoiceSchema = zTranscriptionSettings
  .pick({ model: true, language: true, translateToEn: true })
  .extend({
    model: z.string().min(1),
    language: z.string({ error: VALIDATION_MESSAGES.selectLanguage }).trim().min(1, VALIDATION_MESSAGES.selectLanguage),
  })
  .superRefine((value, ctx) => {
    if (value.language === "en" && value.translateToEn) {
      ctx.addIssue({ code: "custom", path: ["translateToEn"], message: VALIDATION_MESSAGES.englishToEnglish });
    }
  }) satisfies z.ZodType<Pick<TranscriptionSettings, "model" | "language" | "translateToEn">>;

/** The rename form: a transcription's new display name, trimmed, 1 to 255 characters. */
export const renameFormSchema = zRenameTranscription.extend({
  newName: z.string().trim().min(1, VALIDATION_MESSAGES.nameEmpty).max(MAX_NAME_LENGTH, VALIDATION_MESSAGES.nameTooLong),
}) satisfies z.ZodType<RenameTranscription>;

/**
 * What a name may not hold, as the server refuses it (services/transcription speakers.ts):
 * control characters (line breaks, tabs, C0, DEL, C1), U+2028/U+2029 and the bidi
 * embedding, override and isolate controls.
 */
const FORBIDDEN_NAME_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** A speaker's or a saved voice's name. */
export const speakerNameSchema = z
  .string()
  .trim()
  .min(1, "Speaker name cannot be empty")
  .max(MAX_SPEAKER_NAME_LENGTH, `Speaker name is too long (max ${MAX_SPEAKER_NAME_LENGTH} characters)`)
  .refine((name) => !FORBIDDEN_NAME_CHARACTER.test(name), "Speaker name cannot contain line breaks, tabs or control characters");
