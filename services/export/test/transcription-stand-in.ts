import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { AppError, startServiceServer, type Logger, type ServiceServer } from "@transcribe/platform";
import {
  type Transcription,
  TranscriptionSchema,
  TranscriptionService,
  TranscriptionStatus,
} from "@transcribe/proto/transcription/v1/transcription";
import type { Transcript } from "../src/domain/index.js";

/**
 * A stand-in for TranscriptionService.GetTranscription, which the transcription service
 * does not implement yet. It is a real Connect server (the platform's
 * startServiceServer) answering from fixtures with the contract's rules: the caller's
 * own transcriptions only, anyone else's NOT_FOUND, an empty user_id INVALID_ARGUMENT.
 * Replace it with the real service in these tests once GetTranscription exists.
 */
export class TranscriptionStandIn {
  readonly #rows = new Map<string, { owner: string; transcription: Transcription }>();
  calls = 0;
  server!: ServiceServer;

  async start(logger: Logger): Promise<this> {
    this.server = await startServiceServer({
      name: "transcription-stand-in",
      host: "127.0.0.1",
      port: 0,
      logger,
      routes: (router) => {
        router.service(TranscriptionService, {
          getTranscription: async (request) => {
            this.calls += 1;
            if (!request.userId) throw new AppError("invalid_argument", "user_id is required");
            const row = this.#rows.get(request.id);
            if (!row || row.owner !== request.userId || row.transcription.status === TranscriptionStatus.DELETED) {
              throw new AppError("not_found", "Transcription not found");
            }
            return { transcription: row.transcription };
          },
        });
      },
    });
    return this;
  }

  get url(): string {
    return this.server.url;
  }

  put(owner: string, transcription: Transcription): void {
    this.#rows.set(transcription.id, { owner, transcription });
  }

  stop(): Promise<void> {
    return this.server.close();
  }
}

/** The fixture as GetTranscription would return it. */
export function transcriptionOf(
  transcript: Transcript,
  id: string,
  status: TranscriptionStatus = TranscriptionStatus.COMPLETED,
  withResult = status === TranscriptionStatus.COMPLETED,
): Transcription {
  return create(TranscriptionSchema, {
    id,
    displayName: transcript.title,
    status,
    config: { model: transcript.model ?? "", language: transcript.language ?? "" },
    audioFile: { fileId: `file-${id}`, fileName: transcript.sourceFileName ?? "" },
    ...(withResult
      ? {
          result: {
            id: `result-${id}`,
            text: transcript.text,
            language: transcript.language ?? "",
            duration: transcript.duration,
            segments: transcript.segments.map((segment) => ({
              id: segment.id,
              start: segment.start,
              end: segment.end,
              text: segment.text,
              words: segment.words.map((word) => ({ ...word })),
            })),
          },
        }
      : {}),
    createdAt: timestampFromDate(transcript.createdAt ?? new Date()),
    updatedAt: timestampFromDate(transcript.createdAt ?? new Date()),
    ...(status === TranscriptionStatus.FAILED ? { error: "The audio could not be decoded" } : {}),
  });
}
