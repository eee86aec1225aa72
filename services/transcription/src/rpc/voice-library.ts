import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { VoiceSchema, type TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import type { Db } from "../db/repository.js";
import { deleteVoice, libraryEnabled, listVoices, renameVoice, setLibraryEnabled, type VoiceRow } from "../voices.js";

type VoiceHandlers = Pick<ServiceImpl<typeof TranscriptionService>, "getVoiceSettings" | "setVoiceSettings" | "listVoices" | "renameVoice" | "deleteVoice">;

/** The voice library's RPCs (decision 0031), thin over src/voices.ts. */
export function voiceLibraryHandlers(db: Db, requireUser: (userId: string) => string): VoiceHandlers {
  return {
    async getVoiceSettings(request) {
      return { enabled: await libraryEnabled(db, requireUser(request.userId)) };
    },
    async setVoiceSettings(request) {
      return { enabled: await setLibraryEnabled(db, requireUser(request.userId), request.enabled) };
    },
    async listVoices(request) {
      return { voices: (await listVoices(db, requireUser(request.userId))).map(toVoice) };
    },
    async renameVoice(request) {
      return { voice: toVoice(await renameVoice(db, requireUser(request.userId), request.id, request.name)) };
    },
    async deleteVoice(request) {
      await deleteVoice(db, requireUser(request.userId), request.id);
      return {};
    },
  };
}

function toVoice(row: VoiceRow) {
  return create(VoiceSchema, {
    id: row.id,
    name: row.name,
    samples: row.samples,
    createdAt: timestampFromDate(row.created_at),
    updatedAt: timestampFromDate(row.updated_at),
  });
}
