// The voice library in Account Settings (decision 0031): thin calls with their zod schemas,
// plus the query keys the section and the transcript screen share.
import { api } from "./index";
import { zSpeakerList, zVoice, zVoiceList, zVoiceSettings } from "./generated/zod.gen";

export const voiceQueryKeys = {
  settings: ["voices", "settings"] as const,
  list: ["voices", "list"] as const,
};

export const getVoiceSettings = (signal?: AbortSignal) => api.request({ path: "/voices/settings", schema: zVoiceSettings, signal });
export const setVoiceSettings = (enabled: boolean) => api.request({ method: "PUT", path: "/voices/settings", body: { enabled }, schema: zVoiceSettings });
export const listVoices = (signal?: AbortSignal) => api.request({ path: "/voices", schema: zVoiceList, signal });
export const renameVoice = (id: string, name: string) => api.request({ method: "PATCH", path: "/voices/{id}", params: { id }, body: { name }, schema: zVoice });
export const deleteVoice = (id: string) => api.request({ method: "DELETE", path: "/voices/{id}", params: { id } });
/** Undo a voice-library match on a transcript's speaker: back to its anonymous id. */
export const unmatchSpeaker = (transcriptionId: string, speakerId: string) =>
  api.request({ method: "DELETE", path: "/transcriptions/{id}/speakers/{speakerId}/voice", params: { id: transcriptionId, speakerId }, schema: zSpeakerList });
