// Zod schemas of every entity of docs/requirements.md "Entities" (the theme preference lives in theme/), as the app sees them (camelCase, after the API
// client's conversion). Types come from these schemas, never from hand-written copies.
import { z } from "zod";

// ---- limits and messages (docs/requirements.md "Validation", "Limits") ----------------------------------------------

export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
export const MAX_NAME_LENGTH = 255;

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

const isoDate = z.string().min(1);

// ---- users, sessions, accounts -------------------------------------------------------

export const userSchema = z.object({
  id: z.string().min(1),
  email: z.string().min(1),
  name: z.string().nullish(),
  image: z.string().nullish(),
  emailVerified: z.boolean().optional(),
  createdAt: isoDate,
  updatedAt: isoDate.optional(),
});
export type User = z.infer<typeof userSchema>;

/** GET /auth/get-session: null when nobody is signed in. */
export const sessionResponseSchema = z
  .object({
    session: z.object({ token: z.string().optional(), createdAt: isoDate, expiresAt: isoDate.optional() }).loose(),
    user: userSchema.loose(),
  })
  .nullable();
export type SessionResponse = z.infer<typeof sessionResponseSchema>;

export const accountSchema = z.object({
  id: z.string(),
  providerId: z.string(),
  accountId: z.string(),
  createdAt: isoDate,
  updatedAt: isoDate,
  scopes: z.array(z.string()),
});
export type Account = z.infer<typeof accountSchema>;

// ---- files and uploads ---------------------------------------------------------------

export const fileNameSchema = z.string().regex(/\.[A-Za-z0-9]+$/, VALIDATION_MESSAGES.fileNameExtension);

export const contentTypeSchema = z.enum(Object.keys(ALLOWED_CONTENT_TYPES) as [AllowedContentType, ...AllowedContentType[]], {
  error: VALIDATION_MESSAGES.invalidFileType,
});

export const fileSizeSchema = z
  .number()
  .int()
  .positive(VALIDATION_MESSAGES.fileEmpty)
  .max(MAX_UPLOAD_BYTES, VALIDATION_MESSAGES.fileTooLarge);

/**
 * A file as GET /api/v1/files returns it. The server-side record of docs/requirements.md "Entities" also holds
 * rawKey, processedKey and chunks; storage keys never leave the server, so the client
 * sees the chunk count instead.
 */
export const uploadedFileSchema = z.object({
  id: z.string(),
  fileName: z.string(),
  fileSize: z.number().int().min(0),
  contentType: z.string(),
  duration: z.number().min(0),
  status: z.enum(["uploading", "processing", "ready", "failed"]),
  error: z.string().nullable(),
  chunkCount: z.number().int().min(0),
  createdAt: isoDate,
});
export type UploadedFile = z.infer<typeof uploadedFileSchema>;

/** What the upload form checks before asking for an upload URL. */
export const uploadRequestSchema = z.object({
  fileName: fileNameSchema,
  fileSize: fileSizeSchema,
  contentType: contentTypeSchema,
  duration: z.number().positive(),
});
export type UploadRequest = z.infer<typeof uploadRequestSchema>;

export const fileListResponseSchema = z.object({
  files: z.array(uploadedFileSchema),
  totalCount: z.number().int().min(0),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const uploadResponseSchema = z.object({ uploadUrl: z.string(), fileId: z.string(), expiresAt: isoDate.optional() });
export const audioUrlResponseSchema = z.object({ url: z.string(), expiresAt: isoDate });

// ---- transcriptions ------------------------------------------------------------------

export const MODELS = ["whisper-large-v3-turbo", "whisper-large-v3", "scribe-v1"] as const;
export const transcriptionStatusSchema = z.enum(["pending", "processing", "transcribing", "completed", "failed", "deleted"]);
export const listItemStatusSchema = transcriptionStatusSchema.exclude(["deleted"]);
export type TranscriptionStatus = z.infer<typeof transcriptionStatusSchema>;

const languageSchema = z.string({ error: VALIDATION_MESSAGES.selectLanguage }).trim().min(1, VALIDATION_MESSAGES.selectLanguage);

function refuseEnglishToEnglish(value: { language: string; translateToEn?: boolean | undefined }, ctx: z.RefinementCtx) {
  if (value.language === "en" && value.translateToEn) {
    ctx.addIssue({ code: "custom", path: ["translateToEn"], message: VALIDATION_MESSAGES.englishToEnglish });
  }
}

export const transcriptionSettingsSchema = z
  .object({
    provider: z.enum(["groq", "elevenlabs"]),
    model: z.string().min(1),
    responseFormat: z.enum(["json", "verbose_json", "text"]),
    timestampGranularities: z.array(z.enum(["segment", "word"])).nonempty(),
    temperature: z.number().min(0).max(1).default(0),
    language: languageSchema,
    prompt: z.string().optional(),
    translateToEn: z.boolean().default(false),
  })
  .superRefine(refuseEnglishToEnglish);
export type TranscriptionSettings = z.infer<typeof transcriptionSettingsSchema>;

/** The form's choice when starting a transcription. */
export const startTranscriptionRequestSchema = z.object({
  fileId: z.string().min(1),
  settings: z
    .object({ model: z.string().min(1), language: languageSchema, translateToEn: z.boolean().default(false) })
    .superRefine(refuseEnglishToEnglish),
});
export const startTranscriptionResponseSchema = z.object({
  jobId: z.string(),
  /** The BFF also names the transcription to open (/transcript/{transcriptionId}); the job id is the same value. */
  transcriptionId: z.string().optional(),
  message: z.string().optional(),
});

/** One entry of GET /api/v1/models (the BFF's modelSchema). `languages` starts with "auto" (detect). */
export const speechModelSchema = z.object({
  id: z.string(),
  provider: z.enum(["local", "groq", "elevenlabs"]),
  name: z.string(),
  languages: z.array(z.string()),
  translation: z.boolean(),
  available: z.boolean(),
  /** Being prepared (the local speech engine, its weights): a job may be started and waits. */
  preparing: z.boolean().optional(),
  reason: z.string().optional(),
  /** Local models: weights on this server, their download size, the memory they need, a download running now. */
  present: z.boolean().optional(),
  downloadBytes: z.number().optional(),
  ramBytes: z.number().optional(),
  download: z.object({ doneBytes: z.number(), totalBytes: z.number().optional() }).optional(),
});
export type SpeechModel = z.infer<typeof speechModelSchema>;
export const modelDownloadSchema = z.object({ model: speechModelSchema });
export const modelRemovalSchema = z.object({ model: speechModelSchema, removed: z.boolean() });
/** GET /api/v1/me: only what the app reads from it. */
export const meSchema = z.object({ id: z.string(), isAdmin: z.boolean() }).loose();
export const modelsResponseSchema = z.object({ models: z.array(speechModelSchema) });

export const transcriptionListItemSchema = z.object({
  id: z.string(),
  displayName: z.string(),
  duration: z.number().min(0),
  model: z.string(),
  status: listItemStatusSchema,
  uploadedAt: isoDate,
});
export type TranscriptionListItem = z.infer<typeof transcriptionListItemSchema>;

export const transcriptionListResponseSchema = z.object({
  transcriptions: z.array(transcriptionListItemSchema),
  totalCount: z.number().int().min(0),
});

export const wordSchema = z.object({
  word: z.string(),
  start: z.number(),
  end: z.number(),
  probability: z.number().optional(),
  speaker: z.string().optional(),
});
export type Word = z.infer<typeof wordSchema>;

/** `words` only when the job asked for word timestamps. */
export const segmentSchema = z.object({
  id: z.number(),
  start: z.number(),
  end: z.number(),
  text: z.string(),
  words: z.array(wordSchema).optional(),
  /** Speaker id (S1, S2…) when speakers were identified; the name is in result.speakers. */
  speaker: z.string().optional(),
});
export type Segment = z.infer<typeof segmentSchema>;

export const speakerSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The saved voice (voice library) this speaker was recognised as or saved to. */
  voiceId: z.string().optional(),
  /** Set while the name came from the voice library: how sure the match is, 0 to 1. */
  confidence: z.number().optional(),
});
export type Speaker = z.infer<typeof speakerSchema>;
export const speakerListSchema = z.object({ speakers: z.array(speakerSchema) });
export const MAX_SPEAKER_NAME_LENGTH = 80;
export const MAX_SPEAKERS = 20;
export const speakerNameSchema = z
  .string()
  .trim()
  .min(1, "Speaker name cannot be empty")
  .max(MAX_SPEAKER_NAME_LENGTH, `Speaker name is too long (max ${MAX_SPEAKER_NAME_LENGTH} characters)`);

export const transcriptionDetailSchema = z.object({
  id: z.string(),
  displayName: z.string(),
  status: transcriptionStatusSchema,
  /** Why the job failed, when status is failed. */
  error: z.string().optional(),
  /** What a live job waits for ("Downloading Whisper medium: 120 MB of 1.5 GB"). */
  progress: z.string().optional(),
  config: z
    .object({
      model: z.string(),
      language: z.string(),
      timestampGranularities: z.array(z.enum(["segment", "word"])),
      diarize: z.boolean().optional(),
      minSpeakers: z.number().optional(),
      maxSpeakers: z.number().optional(),
    })
    .optional(),
  audioFile: z.object({ fileId: z.string().optional(), fileName: z.string(), contentType: z.string().optional() }),
  result: z
    .object({
      id: z.string(),
      text: z.string(),
      language: z.string(),
      duration: z.number(),
      /** The revision shown (1: the engine's result); what an edit is based on. */
      revision: z.number().default(1),
      segments: z.array(segmentSchema),
      speakers: z.array(speakerSchema).default([]),
      speakersNote: z.string().optional(),
    })
    .nullable(),
  createdAt: isoDate,
  updatedAt: isoDate,
});
export type TranscriptionDetail = z.infer<typeof transcriptionDetailSchema>;

export const renameRequestSchema = z.object({
  newName: z.string().trim().min(1, VALIDATION_MESSAGES.nameEmpty).max(MAX_NAME_LENGTH, VALIDATION_MESSAGES.nameTooLong),
});

// ---- exports -------------------------------------------------------------------------

/** The spec's four formats plus vtt, json and rttm (the speaker turns) (the BFF's exports route). */
export const EXPORT_FORMATS = ["txt", "docx", "pdf", "srt", "vtt", "json", "rttm"] as const;
export const exportFormatSchema = z.enum(EXPORT_FORMATS);
export type ExportFormat = z.infer<typeof exportFormatSchema>;
export const exportRequestSchema = z.object({ format: exportFormatSchema, includeTimestamps: z.boolean().optional() });
export const exportResponseSchema = z.object({ downloadUrl: z.string(), format: exportFormatSchema, expiresAt: isoDate });

// ---- billing -------------------------------------------------------------------------

export const trialLimitsSchema = z.object({
  usedTotal: z.number().int().min(0),
  totalLimit: z.number().int().min(0),
  tier: z.enum(["free", "premium"]),
});
export type TrialLimits = z.infer<typeof trialLimitsSchema>;

const usagePeriodSchema = z.object({ fileCount: z.number().int().min(0), totalMinutes: z.number().int().min(0) });
export const usageStatsSchema = z.object({ thisMonth: usagePeriodSchema, allTime: usagePeriodSchema });
export const checkoutResponseSchema = z.object({ checkoutUrl: z.string(), sessionId: z.string() });
export const billingPortalResponseSchema = z.object({ portalUrl: z.string() });
export const SUBSCRIPTION_STATUSES = ["none", "active", "trialing", "past_due", "canceled", "unpaid"] as const;
/** GET /billing/subscription: the plan as stored, and whether this server takes payments. */
export const subscriptionSchema = z.object({
  paymentsEnabled: z.boolean(),
  tier: z.enum(["free", "premium"]),
  tierSetByAdmin: z.boolean(),
  hasBillingAccount: z.boolean(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  cancelAtPeriodEnd: z.boolean(),
  currentPeriodEnd: isoDate.nullable(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;
export const restoreResponseSchema = z.object({ status: z.enum(SUBSCRIPTION_STATUSES), tier: z.enum(["free", "premium"]) });

// ---- greeting and blog ---------------------------------------------------------------

export const greetingResponseSchema = z.object({ greeting: z.string().nullable() });

export const blogPostSchema = z
  .object({
    title: z.string(),
    subtitle: z.string(),
    metaDescription: z.string(),
    slug: z.string(),
    author: z.string().default(""),
    coverImageUrl: z.string().nullable().default(null),
    tags: z.array(z.string()).default([]),
    publishedAt: z.string().default(""),
    /** Rendered and sanitized by the blog service; empty in list entries. */
    bodyHtml: z.string().default(""),
  })
  .loose();
export type BlogPost = z.infer<typeof blogPostSchema>;
export const blogListResponseSchema = z.object({ posts: z.array(blogPostSchema), totalCount: z.number().int().optional() });
export const blogPostResponseSchema = z.object({ post: blogPostSchema });
export const webhookPayloadSchema = z.object({ body: z.string(), signature: z.string() });
export const webhookResponseSchema = z.object({ received: z.boolean() });


// ---- developer API: keys and webhooks (docs/api.md "Use it from code") ----------------

export const apiKeySchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  prefix: z.string(),
  createdAt: isoDate,
  lastUsedAt: isoDate.nullable(),
  expiresAt: isoDate.nullable(),
});
export type ApiKey = z.infer<typeof apiKeySchema>;
export const apiKeyListSchema = z.object({ apiKeys: z.array(apiKeySchema) });
export const createdApiKeySchema = apiKeySchema.omit({ lastUsedAt: true }).extend({ key: z.string().min(1) });

export const webhookEventNames = ["transcription.completed", "transcription.failed"] as const;
export const webhookSchema = z.object({ id: z.string().min(1), url: z.string(), events: z.array(z.enum(webhookEventNames)), createdAt: isoDate });
export type WebhookEndpoint = z.infer<typeof webhookSchema>;
export const webhookListSchema = z.object({ webhooks: z.array(webhookSchema) });
export const createdWebhookSchema = webhookSchema.omit({ createdAt: true }).extend({ secret: z.string().min(1) });
export const webhookDeliverySchema = z.object({
  id: z.string().min(1),
  eventType: z.enum(webhookEventNames),
  transcriptionId: z.string(),
  status: z.enum(["pending", "succeeded", "failed"]),
  attempts: z.number().int().min(0),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: isoDate,
  nextAttemptAt: isoDate.nullable(),
  deliveredAt: isoDate.nullable(),
});
export type WebhookDelivery = z.infer<typeof webhookDeliverySchema>;
export const webhookDeliveryListSchema = z.object({ deliveries: z.array(webhookDeliverySchema) });


// ---- voice library (Account Settings, decision 0031) -----------------------------------

export const voiceSettingsSchema = z.object({ enabled: z.boolean() });
export type VoiceSettings = z.infer<typeof voiceSettingsSchema>;
export const voiceSchema = z.object({ id: z.string().min(1), name: z.string(), samples: z.number().int(), createdAt: isoDate, updatedAt: isoDate });
export type Voice = z.infer<typeof voiceSchema>;
export const voiceListSchema = z.object({ voices: z.array(voiceSchema) });

/** One term of the user's vocabulary (GET/PUT /api/v1/vocabulary). */
export const vocabularyTermSchema = z.object({
  term: z.string(),
  soundsLike: z.array(z.string()).optional(),
  language: z.string().optional(),
});
export type VocabularyTerm = z.infer<typeof vocabularyTermSchema>;
export const vocabularySchema = z.object({ terms: z.array(vocabularyTermSchema) });
