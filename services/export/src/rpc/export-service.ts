import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import {
  CreateExportResponseSchema,
  ExportFormat as ProtoFormat,
  ExportFormatSchema,
  ExportService,
} from "@transcribe/proto/export/v1/export";
import { enumNames } from "@transcribe/platform";
import type { ExportManager } from "../exports.js";

/** The registry's format names are the proto enum's (EXPORT_FORMAT_RTTM is "rttm"; test/formats.test.ts checks each has one). */
const protoFormats = enumNames<ProtoFormat>(ExportFormatSchema);

/** Thin: the request's fields to ExportManager.create, its result to the response. */
export function exportRoutes(manager: ExportManager): (router: ConnectRouter) => void {
  return (router) => {
    router.service(ExportService, {
      async createExport(request) {
        const created = await manager.create({
          userId: request.userId,
          transcriptionId: request.transcriptionId,
          // UNSPECIFIED and values this build does not know map to "" and are refused.
          format: protoFormats.name(request.format) ?? "",
          includeTimestamps: request.includeTimestamps,
          ...(request.revision !== undefined ? { revision: request.revision } : {}),
        });
        return create(CreateExportResponseSchema, {
          downloadUrl: created.downloadUrl,
          format: protoFormats.value(created.format) ?? ProtoFormat.UNSPECIFIED,
          expiresAt: timestampFromDate(created.expiresAt),
        });
      },
    });
  };
}
