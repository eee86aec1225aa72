import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import {
  CreateExportResponseSchema,
  ExportFormat as ProtoFormat,
  ExportService,
} from "@transcribe/proto/export/v1/export";
import type { ExportFormat } from "../domain/index.js";
import type { ExportManager } from "../exports.js";

const fromProto: Partial<Record<ProtoFormat, ExportFormat>> = {
  [ProtoFormat.TXT]: "txt",
  [ProtoFormat.DOCX]: "docx",
  [ProtoFormat.PDF]: "pdf",
  [ProtoFormat.SRT]: "srt",
  [ProtoFormat.VTT]: "vtt",
  [ProtoFormat.JSON]: "json",
  [ProtoFormat.RTTM]: "rttm",
};

const toProto = Object.fromEntries(Object.entries(fromProto).map(([proto, format]) => [format, Number(proto)])) as Record<
  ExportFormat,
  ProtoFormat
>;

/** Thin: the request's fields to ExportManager.create, its result to the response. */
export function exportRoutes(manager: ExportManager): (router: ConnectRouter) => void {
  return (router) => {
    router.service(ExportService, {
      async createExport(request) {
        const created = await manager.create({
          userId: request.userId,
          transcriptionId: request.transcriptionId,
          // UNSPECIFIED and values this build does not know map to "" and are refused.
          format: fromProto[request.format] ?? "",
          includeTimestamps: request.includeTimestamps,
          ...(request.revision !== undefined ? { revision: request.revision } : {}),
        });
        return create(CreateExportResponseSchema, {
          downloadUrl: created.downloadUrl,
          format: toProto[created.format],
          expiresAt: timestampFromDate(created.expiresAt),
        });
      },
    });
  };
}
