import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { AppError, type Logger } from "@transcribe/platform";
import { FileStatus, type File, type MediaService } from "@transcribe/proto/media/v1/media";
import { type Settings, type Transcription, TranscriptionStatus, type TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { SettingsSchema } from "@transcribe/proto/transcription/v1/transcription";
import { STORAGE_PREFIX } from "../routes/storage-proxy.js";
import { declaredContentType, declaredFileName } from "./media-type.js";
import type { ReceivedFile } from "./multipart-form.js";

/**
 * A declared duration for a file whose length the caller does not know. Media measures the
 * real one before the file is READY, and nothing starts a transcription before then, so
 * quota and limits always see the measured length.
 */
const UNKNOWN_DURATION = 0.001;

export interface DeveloperPipelineDeps {
  media: Client<typeof MediaService>;
  transcription: Client<typeof TranscriptionService>;
  /** Media's own URL: embedded-mode signed upload URLs (under STORAGE_PREFIX) are PUT there directly. */
  mediaUrl: string;
  /** Where a refused request's file that could not be deleted is reported, so it can be found and removed. */
  logger: Logger;
  pollMs?: number;
}

/**
 * The developer API over the product's own pipeline: the same signed upload and media
 * checks as the web app's uploads, the same transcription jobs. Only the waiting is new.
 */
export function developerPipeline(deps: DeveloperPipelineDeps) {
  const pollMs = deps.pollMs ?? 250;

  /** Where to PUT: media's signed URL as it is, or (embedded mode) the same path on media itself. */
  function putTarget(uploadUrl: string): string {
    const url = new URL(uploadUrl);
    if (!url.pathname.startsWith(`${STORAGE_PREFIX}/`)) return uploadUrl;
    return new URL(`${url.pathname}${url.search}`, deps.mediaUrl).toString();
  }

  async function uploadFile(userId: string, file: ReceivedFile): Promise<string> {
    if (file.size === 0) throw new AppError("invalid_argument", "File cannot be empty", { param: "file" });
    const contentType = declaredContentType(file.fileName, file.mimeType) ?? file.mimeType;
    const { fileId, uploadUrl } = await deps.media.createUpload({
      userId,
      fileName: declaredFileName(file.fileName, contentType),
      fileSize: BigInt(file.size),
      contentType,
      duration: UNKNOWN_DURATION,
    });
    const put = await fetch(putTarget(uploadUrl), {
      method: "PUT",
      headers: { "content-type": contentType, "content-length": String(file.size) },
      body: Readable.toWeb(createReadStream(file.path)) as ReadableStream<Uint8Array>,
      duplex: "half",
    } as RequestInit);
    await put.body?.cancel();
    if (!put.ok) throw new AppError("unavailable", `The file could not be stored (storage answered ${put.status})`);
    await deps.media.completeUpload({ userId, fileId });
    return fileId;
  }

  /** Waits until media has checked and transcoded the file (undefined: the deadline came first); its refusal is the caller's error. */
  async function waitUntilReady(userId: string, fileId: string, deadline: number): Promise<File | undefined> {
    for (;;) {
      const { file } = await deps.media.getFile({ userId, fileId });
      if (!file) throw new AppError("not_found", "File not found");
      if (file.status === FileStatus.READY) return file;
      if (file.status === FileStatus.FAILED) throw new AppError("invalid_argument", file.error ?? "The file could not be processed", { param: "file" });
      if (Date.now() >= deadline) return undefined;
      await sleep(pollMs);
    }
  }

  /** `liveText`: what a live session settled, shown until the batch pass replaces it (decision 0037). */
  async function start(userId: string, fileId: string, settings: MessageInitShape<typeof SettingsSchema>, liveText?: string): Promise<string> {
    const answer = await deps.transcription.createTranscription({ userId, fileId, settings, ...(liveText ? { liveText } : {}) });
    return answer.transcriptionId;
  }

  /** The finished transcription, or undefined when the deadline came first (the job goes on). */
  async function waitForResult(userId: string, id: string, deadline: number): Promise<Transcription | undefined> {
    for (;;) {
      const { transcription } = await deps.transcription.getTranscription({ userId, id });
      if (!transcription) throw new AppError("not_found", "Transcription not found");
      if (transcription.status === TranscriptionStatus.COMPLETED || transcription.status === TranscriptionStatus.FAILED) return transcription;
      if (Date.now() >= deadline) return undefined;
      await sleep(Math.min(pollMs * 2, Math.max(1, deadline - Date.now())));
    }
  }

  /**
   * For a file the request itself stored (uploadFile, or media's URL import): waits until it
   * is READY, then starts its transcription. A refusal on the way (media's check of the file,
   * the transcription service's check of the settings, the quota) deletes the file before it
   * is passed on, so a rejected request leaves no file behind that its caller never heard
   * of. undefined: the deadline came first; the file is kept, since media is still on it.
   */
  async function startWhenReady(userId: string, fileId: string, deadline: number, settings: MessageInitShape<typeof SettingsSchema>): Promise<string | undefined> {
    let ready: File | undefined;
    try {
      ready = await waitUntilReady(userId, fileId, deadline);
    } catch (error) {
      await discard(userId, fileId);
      throw error;
    }
    if (!ready) return undefined;
    try {
      return await start(userId, fileId, settings);
    } catch (error) {
      if (!outcomeUnknown(error)) await discard(userId, fileId);
      throw error;
    }
  }

  /** Deletes a file the request stored. The refusal that led here stays the caller's answer; a failed delete is logged, never hidden. */
  async function discard(userId: string, fileId: string): Promise<void> {
    await deps.media.deleteFile({ userId, fileId }).catch((error: unknown) => {
      deps.logger.warn({ err: error, userId, fileId }, "could not delete the file of a refused developer-API request");
    });
  }

  return { uploadFile, waitUntilReady, start, startWhenReady, waitForResult };
}

/**
 * A call whose answer did not come back (our deadline, our cancellation): the service may
 * have created the transcription anyway, and its file must then stay. Any other error is
 * the service's refusal (given before it writes anything) or a call that did not reach it.
 */
function outcomeUnknown(error: unknown): boolean {
  return error instanceof ConnectError && (error.code === Code.DeadlineExceeded || error.code === Code.Canceled);
}
export type DeveloperPipeline = ReturnType<typeof developerPipeline>;
export type { Settings };
