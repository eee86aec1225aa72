import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { enumNames } from "@transcribe/platform";
import {
  FileSchema,
  type FileStatus,
  FileStatusSchema,
  MediaService,
  type File,
} from "@transcribe/proto/media/v1/media";
import type { FileRow } from "../db/schema.js";
import type { MediaFiles } from "../files.js";

const fileStatus = enumNames<FileStatus>(FileStatusSchema);

export function toFileMessage(row: FileRow): File {
  return create(FileSchema, {
    id: row.id,
    fileName: row.file_name,
    fileSize: BigInt(row.file_size),
    contentType: row.content_type,
    duration: row.duration,
    rawKey: row.raw_key,
    ...(row.processed_key ? { processedKey: row.processed_key } : {}),
    chunks: row.chunks,
    status: fileStatus.value(row.status),
    ...(row.error ? { error: row.error } : {}),
    createdAt: timestampFromDate(row.created_at),
  });
}

/** Thin Connect handlers: the rules live in MediaFiles. */
export function rpcRoutes(files: MediaFiles) {
  return (router: ConnectRouter) => {
    router.service(MediaService, {
      async createUpload(req) {
        const upload = await files.createUpload(req.userId, {
          fileName: req.fileName,
          fileSize: Number(req.fileSize),
          contentType: req.contentType,
          duration: req.duration,
        });
        return { uploadUrl: upload.uploadUrl, fileId: upload.fileId, expiresAt: timestampFromDate(upload.expiresAt) };
      },
      async completeUpload(req) {
        return { file: toFileMessage(await files.completeUpload(req.userId, req.fileId)) };
      },
      async getFile(req) {
        return { file: toFileMessage(await files.getFile(req.userId, req.fileId)) };
      },
      async listFiles(req) {
        const page = await files.listFiles(req.userId, req.limit, req.offset);
        return { files: page.files.map(toFileMessage), totalCount: page.totalCount };
      },
      async deleteFile(req) {
        await files.deleteFile(req.userId, req.fileId);
        return {};
      },
      async importFromUrl(req) {
        return { fileId: await files.importFromUrl(req.userId, req.url) };
      },
      async getAudioUrl(req) {
        const url = await files.getAudioUrl(req.userId, req.fileId);
        return { url: url.url, expiresAt: timestampFromDate(url.expiresAt) };
      },
    });
  };
}
