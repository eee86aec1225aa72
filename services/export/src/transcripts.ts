import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import { AppError, enumNames, fromConnectError } from "@transcribe/platform";
import {
  type Transcription,
  type TranscriptionService,
  TranscriptionStatus,
  TranscriptionStatusSchema,
} from "@transcribe/proto/transcription/v1/transcription";
import type { Transcript } from "./domain/index.js";

export type TranscriptionClient = Client<typeof TranscriptionService>;

/**
 * Reads a transcript for an export through TranscriptionService.GetTranscription, acting
 * for the user (so someone else's transcript is NOT_FOUND there already), and refuses
 * what cannot be exported.
 */
export async function fetchExportableTranscript(
  client: TranscriptionClient,
  userId: string,
  transcriptionId: string,
  revision?: number,
): Promise<Transcript> {
  let transcription: Transcription | undefined;
  try {
    ({ transcription } = await client.getTranscription({ userId, id: transcriptionId, ...(revision !== undefined ? { revision } : {}) }));
  } catch (error) {
    const appError = fromConnectError(error);
    // A revision the transcript does not have keeps its own message ("Revision 7 not found").
    if (appError.code === "not_found") throw appError.detail?.field === "revision" ? appError : transcriptionNotFound();
    throw appError;
  }
  if (!transcription || transcription.status === TranscriptionStatus.DELETED) throw transcriptionNotFound();
  assertExportable(transcription);
  return toTranscript(transcription);
}

export function transcriptionNotFound(): AppError {
  return new AppError("not_found", "Transcription not found");
}

const statusNames = enumNames<TranscriptionStatus>(TranscriptionStatusSchema);

/** Only a COMPLETED transcription with a result is exported (see decision 0007). */
function assertExportable(transcription: Transcription): void {
  const status = statusNames.name(transcription.status) ?? "unspecified";
  if (transcription.status === TranscriptionStatus.FAILED) {
    throw new AppError("failed_precondition", "This transcription failed, so there is nothing to export", { status });
  }
  if (transcription.status !== TranscriptionStatus.COMPLETED) {
    throw new AppError("failed_precondition", "This transcription is not finished yet; export it once it has completed", {
      status,
    });
  }
  if (!transcription.result) {
    throw new AppError("failed_precondition", "This transcription has no result to export", { status });
  }
}

/** The protobuf detail as the renderers' plain model. */
export function toTranscript(transcription: Transcription): Transcript {
  const result = transcription.result!;
  // Exports show the names people gave the speakers, never the stale ids.
  const names = new Map(result.speakers.map((s) => [s.id, s.name]));
  const nameOf = (id: string | undefined) => (id ? (names.get(id) ?? id) : undefined);
  const segments = result.segments.map((segment, index) => ({
    id: segment.id || index,
    start: segment.start,
    end: segment.end,
    text: segment.text,
    words: segment.words.map((word) => ({
      word: word.word,
      start: word.start,
      end: word.end,
      ...(word.probability !== undefined ? { probability: word.probability } : {}),
      ...(nameOf(word.speaker) ? { speaker: nameOf(word.speaker)! } : {}),
    })),
    ...(nameOf(segment.speaker) ? { speaker: nameOf(segment.speaker)! } : {}),
  }));
  const fileName = transcription.audioFile?.fileName || undefined;
  const language = result.language || transcription.config?.language || undefined;
  const model = transcription.config?.model || undefined;
  return {
    id: transcription.id,
    title: transcription.displayName.trim() || fileName || "Transcript",
    ...(fileName ? { sourceFileName: fileName } : {}),
    ...(language ? { language } : {}),
    ...(model ? { model } : {}),
    ...(transcription.createdAt ? { createdAt: timestampDate(transcription.createdAt) } : {}),
    duration: result.duration || (segments.at(-1)?.end ?? 0),
    ...(result.revision ? { revision: result.revision } : {}),
    text: result.text,
    segments,
    speakers: result.speakers.map((s) => ({ id: s.id, name: s.name })),
    speakerTurns: result.speakerTurns.map((t) => ({ start: t.start, end: t.end, speaker: nameOf(t.speaker)! })),
  };
}
