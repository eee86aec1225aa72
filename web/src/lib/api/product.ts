// The product routes the dashboard and transcript pages use (docs/api.md, /api/v1), each a
// thin call through the one API client with its zod schema, plus the query keys.
import { z } from "zod";
import { api } from "./index";
import {
  audioUrlResponseSchema,
  exportResponseSchema,
  meSchema,
  modelDownloadSchema,
  modelRemovalSchema,
  modelsResponseSchema,
  speakerSchema,
  startTranscriptionResponseSchema,
  transcriptionDetailSchema,
  transcriptionListItemSchema,
  transcriptionListResponseSchema,
  uploadedFileSchema,
  uploadResponseSchema,
  vocabularySchema,
  type VocabularyTerm,
  type ExportFormat,
  type UploadRequest,
} from "./schemas";

export const queryKeys = {
  transcriptions: ["transcriptions"] as const,
  transcriptionList: (params: TranscriptionListParams) => ["transcriptions", "list", params] as const,
  transcription: (id: string) => ["transcriptions", "detail", id] as const,
  audioUrl: (id: string) => ["transcriptions", "audio-url", id] as const,
  file: (id: string) => ["files", id] as const,
  models: ["models"] as const,
  me: ["me"] as const,
  vocabulary: ["vocabulary"] as const,
};

export interface TranscriptionListParams {
  limit: number;
  offset: number;
  q?: string | undefined;
}

export function requestUpload(request: UploadRequest, signal?: AbortSignal) {
  return api.request({ method: "POST", path: "/upload", body: request, schema: uploadResponseSchema, signal });
}

export function getFile(id: string, signal?: AbortSignal) {
  return api.request({ path: "/files/{id}", params: { id }, schema: uploadedFileSchema, signal });
}

export function deleteFile(id: string) {
  return api.request({ method: "DELETE", path: "/files/{id}", params: { id }, schema: z.undefined() });
}

export function listModels(signal?: AbortSignal) {
  return api.request({ path: "/models", schema: modelsResponseSchema, signal });
}

/** Administrators: start (or join) a local model's download; progress shows in listModels. */
export function downloadModel(id: string) {
  return api.request({ method: "POST", path: "/models/{id}/download", params: { id }, schema: modelDownloadSchema });
}

/** Administrators: remove a local model's files. */
export function removeModel(id: string) {
  return api.request({ method: "DELETE", path: "/models/{id}", params: { id }, schema: modelRemovalSchema });
}

export function getMe(signal?: AbortSignal) {
  return api.request({ path: "/me", schema: meSchema, signal });
}

export interface StartTranscription {
  fileId: string;
  settings: {
    model: string;
    language: string;
    translateToEn: boolean;
    diarize?: boolean;
    minSpeakers?: number;
    maxSpeakers?: number;
    /** Extra terms for this file only (decision 0029). */
    vocabulary?: string[];
    /** false: leave the user's vocabulary out; default on. */
    useVocabulary?: boolean;
  };
}

/** GET /vocabulary: the signed-in user's terms. */
export function getVocabulary(signal?: AbortSignal) {
  return api.request({ path: "/vocabulary", schema: vocabularySchema, signal });
}

/** PUT /vocabulary: replaces the whole list; a broken limit is a 400 with the reason. */
export function saveVocabulary(terms: VocabularyTerm[]) {
  return api.request({ method: "PUT", path: "/vocabulary", body: { terms }, schema: vocabularySchema });
}

// The transcript page plays along word by word and the editor keeps word timings, so the
// app always asks for them (the API's default is segments only).
const WITH_WORDS = { timestampGranularities: ["segment", "word"] } as const;

export function startTranscription(request: StartTranscription) {
  return api.request({ method: "POST", path: "/transcriptions", body: { ...request, settings: { ...request.settings, ...WITH_WORDS } }, schema: startTranscriptionResponseSchema });
}

/** POST /transcriptions/{id}/retry: runs the same file again with other settings (409 while a job runs). */
export function retryTranscription(id: string, settings: StartTranscription["settings"]) {
  return api.request({
    method: "POST",
    path: "/transcriptions/{id}/retry",
    params: { id },
    body: { settings: { ...settings, ...WITH_WORDS } },
    schema: z.object({ jobId: z.string() }),
  });
}

export function listTranscriptions(params: TranscriptionListParams, signal?: AbortSignal) {
  return api.request({
    path: "/transcriptions",
    query: { limit: params.limit, offset: params.offset, q: params.q || undefined },
    schema: transcriptionListResponseSchema,
    signal,
  });
}

export function getTranscription(id: string, signal?: AbortSignal) {
  return api.request({ path: "/transcriptions/{id}", params: { id }, schema: transcriptionDetailSchema, signal });
}

export function renameTranscription(id: string, newName: string) {
  return api.request({
    method: "PATCH",
    path: "/transcriptions/{id}/rename",
    params: { id },
    body: { newName },
    schema: transcriptionListItemSchema,
  });
}

export function deleteTranscription(id: string) {
  return api.request({ method: "DELETE", path: "/transcriptions/{id}", params: { id }, schema: z.undefined() });
}

export function getTranscriptionAudioUrl(id: string, signal?: AbortSignal) {
  return api.request({ path: "/transcriptions/{id}/audio-url", params: { id }, schema: audioUrlResponseSchema, signal });
}

export function exportTranscription(id: string, format: ExportFormat) {
  return api.request({
    method: "POST",
    path: "/transcriptions/{id}/export",
    params: { id },
    body: { format },
    schema: exportResponseSchema,
  });
}

/** PATCH /transcriptions/{id}/speakers/{speakerId}: renames a speaker everywhere (exports too). */
export function renameSpeaker(id: string, speakerId: string, name: string) {
  return api.request({
    method: "PATCH",
    path: "/transcriptions/{id}/speakers/{speakerId}",
    params: { id, speakerId },
    body: { name },
    schema: z.object({ speakers: z.array(speakerSchema) }),
  });
}

/** POST /transcriptions/{id}/diarize: identifies speakers again without transcribing again. */
export function diarizeTranscription(id: string, counts: { minSpeakers?: number | undefined; maxSpeakers?: number | undefined }) {
  return api.request({
    method: "POST",
    path: "/transcriptions/{id}/diarize",
    params: { id },
    body: counts,
    schema: z.object({ jobId: z.string() }),
  });
}
