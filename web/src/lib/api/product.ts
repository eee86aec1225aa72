// The product routes the dashboard and transcript pages use (docs/api.md, /api/v1), each a
// thin call through the one API client with its zod schema, plus the query keys.
import { api } from "./index";
import {
  type ExportRequest,
  type StartTranscription,
  type TranscriptionSettings,
  type UploadRequest,
  type VocabularyTerm,
  zDeleteFileResponse,
  zDeleteTranscriptionResponse,
  zDiarizeResponse,
  zExportResponse,
  zFile,
  zModelDownloadStarted,
  zModelList,
  zModelRemoval,
  zRetryTranscriptionResponse,
  zSpeakerList,
  zStartTranscriptionResponse,
  zTranscriptionAudioUrl,
  zTranscriptionDetail,
  zTranscriptionList,
  zTranscriptionListItem,
  zUploadResponse,
  zUser,
  zVocabulary,
} from "./generated/zod.gen";

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
  return api.request({ method: "POST", path: "/upload", body: request, schema: zUploadResponse, signal });
}

export function getFile(id: string, signal?: AbortSignal) {
  return api.request({ path: "/files/{id}", params: { id }, schema: zFile, signal });
}

export function deleteFile(id: string) {
  return api.request({ method: "DELETE", path: "/files/{id}", params: { id }, schema: zDeleteFileResponse });
}

export function listModels(signal?: AbortSignal) {
  return api.request({ path: "/models", schema: zModelList, signal });
}

/** Administrators: start (or join) a local model's download; progress shows in listModels. */
export function downloadModel(id: string) {
  return api.request({ method: "POST", path: "/models/{id}/download", params: { id }, schema: zModelDownloadStarted });
}

/** Administrators: remove a local model's files. */
export function removeModel(id: string) {
  return api.request({ method: "DELETE", path: "/models/{id}", params: { id }, schema: zModelRemoval });
}

export function getMe(signal?: AbortSignal) {
  return api.request({ path: "/me", schema: zUser, signal });
}

/** GET /vocabulary: the signed-in user's terms. */
export function getVocabulary(signal?: AbortSignal) {
  return api.request({ path: "/vocabulary", schema: zVocabulary, signal });
}

/** PUT /vocabulary: replaces the whole list; a broken limit is a 400 with the reason. */
export function saveVocabulary(terms: VocabularyTerm[]) {
  return api.request({ method: "PUT", path: "/vocabulary", body: { terms }, schema: zVocabulary });
}

// The transcript page plays along word by word and the editor keeps word timings, so the
// app always asks for them (the API's default is segments only).
const WITH_WORDS = { timestampGranularities: ["segment", "word"] } as const;

export function startTranscription(request: StartTranscription) {
  return api.request({ method: "POST", path: "/transcriptions", body: { ...request, settings: { ...request.settings, ...WITH_WORDS } }, schema: zStartTranscriptionResponse });
}

/** POST /transcriptions/{id}/retry: runs the same file again with other settings (409 while a job runs). */
export function retryTranscription(id: string, settings: TranscriptionSettings) {
  return api.request({
    method: "POST",
    path: "/transcriptions/{id}/retry",
    params: { id },
    body: { settings: { ...settings, ...WITH_WORDS } },
    schema: zRetryTranscriptionResponse,
  });
}

export function listTranscriptions(params: TranscriptionListParams, signal?: AbortSignal) {
  return api.request({
    path: "/transcriptions",
    query: { limit: params.limit, offset: params.offset, q: params.q || undefined },
    schema: zTranscriptionList,
    signal,
  });
}

export function getTranscription(id: string, signal?: AbortSignal) {
  return api.request({ path: "/transcriptions/{id}", params: { id }, schema: zTranscriptionDetail, signal });
}

export function renameTranscription(id: string, newName: string) {
  return api.request({
    method: "PATCH",
    path: "/transcriptions/{id}/rename",
    params: { id },
    body: { newName },
    schema: zTranscriptionListItem,
  });
}

export function deleteTranscription(id: string) {
  return api.request({ method: "DELETE", path: "/transcriptions/{id}", params: { id }, schema: zDeleteTranscriptionResponse });
}

export function getTranscriptionAudioUrl(id: string, signal?: AbortSignal) {
  return api.request({ path: "/transcriptions/{id}/audio-url", params: { id }, schema: zTranscriptionAudioUrl, signal });
}

export function exportTranscription(id: string, format: ExportRequest["format"]) {
  return api.request({
    method: "POST",
    path: "/transcriptions/{id}/export",
    params: { id },
    body: { format },
    schema: zExportResponse,
  });
}

/** PATCH /transcriptions/{id}/speakers/{speakerId}: renames a speaker everywhere (exports too). */
export function renameSpeaker(id: string, speakerId: string, name: string) {
  return api.request({
    method: "PATCH",
    path: "/transcriptions/{id}/speakers/{speakerId}",
    params: { id, speakerId },
    body: { name },
    schema: zSpeakerList,
  });
}

/** POST /transcriptions/{id}/diarize: identifies speakers again without transcribing again. */
export function diarizeTranscription(id: string, counts: { minSpeakers?: number | undefined; maxSpeakers?: number | undefined }) {
  return api.request({
    method: "POST",
    path: "/transcriptions/{id}/diarize",
    params: { id },
    body: counts,
    schema: zDiarizeResponse,
  });
}
