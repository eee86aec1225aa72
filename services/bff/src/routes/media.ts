import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import { AppError, enumNames } from "@transcribe/platform";
import { type File, type FileStatus, FileStatusSchema, type MediaService } from "@transcribe/proto/media/v1/media";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { security } from "../http/openapi.js";
import { signedInUserId } from "../http/signed-in-user.js";

/**
 * Uploads and files (docs/requirements.md "Entities" (uploaded file record), "Validation", "Calls"; docs/api.md).
 * The rules and their messages live in the media service; these schemas check only
 * shapes, so a person sees the spec's words ("File cannot be empty"), not a schema's.
 */

const fileStatus = enumNames<FileStatus>(FileStatusSchema);

export const fileSchema = z
  .object({
    id: z.string(),
    file_name: z.string(),
    file_size: z.number().int().nonnegative().describe("Bytes"),
    content_type: z.string(),
    duration: z.number().nonnegative().describe("Seconds; as declared until the file is processed, then as measured"),
    status: z.enum(fileStatus.names as [string, ...string[]]),
    error: z.string().nullable().describe("Why the file was refused, when status is failed"),
    chunk_count: z.number().int().nonnegative().describe("Pieces the processed audio is split into for speech engines (0: not split)"),
    created_at: z.iso.datetime(),
  })
  .meta({ id: "File", description: "An uploaded or imported media file and its processing state" });

export const uploadRequestSchema = z
  .object({
    file_name: z.string().max(1024),
    file_size: z.number().int().describe("Bytes; 1 to 100 MB"),
    content_type: z.string().max(255).describe("One of the spec's audio/video types; the PUT must send the same Content-Type"),
    duration: z.number().describe("Seconds, as the browser measured it"),
  })
  .meta({ id: "UploadRequest", description: "The file about to be uploaded, as the client sees it" });

export const uploadResponseSchema = z
  .object({
    upload_url: z.string().describe("PUT the file's bytes here, with the declared Content-Type and exactly file_size bytes"),
    file_id: z.string(),
    expires_at: z.iso.datetime().describe("The PUT must start before this"),
  })
  .meta({ id: "UploadResponse", description: "Where to PUT the bytes: the file's declared Content-Type and exactly file_size bytes, before expires_at; the file then turns processing, then ready" });

export const fileListSchema = z
  .object({ files: z.array(fileSchema), total_count: z.number().int().nonnegative(), limit: z.number().int(), offset: z.number().int() })
  .meta({ id: "FileList", description: "One page of the caller's files, newest first" });

export const audioUrlSchema = z
  .object({ url: z.string().describe("Short-lived; supports HTTP range requests"), expires_at: z.iso.datetime() })
  .meta({ id: "AudioUrl", description: "A short-lived URL of the processed audio" });

const idParams = z.object({ id: z.string().min(1).max(64).describe("The file's id") });
const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  // The services take an int32 offset; past it the call failed with a 500.
  offset: z.coerce.number().int().min(0).max(2_147_483_647).default(0),
});

const errors = { 400: apiErrorSchema, 401: apiErrorSchema, 404: apiErrorSchema, 409: apiErrorSchema, 503: apiErrorSchema };

export function toFileJson(file: File): z.infer<typeof fileSchema> {
  return {
    id: file.id,
    file_name: file.fileName,
    file_size: Number(file.fileSize),
    content_type: file.contentType,
    duration: file.duration,
    // An unset status reads as processing.
    status: fileStatus.name(file.status) ?? "processing",
    error: file.error ?? null,
    chunk_count: file.chunks.length,
    created_at: (file.createdAt ? timestampDate(file.createdAt) : new Date(0)).toISOString(),
  };
}

export const mediaRoutes: FastifyPluginAsyncZod<{ client: Client<typeof MediaService> }> = async (app, { client }) => {
  const common = { tags: ["files"], security: security.sessionOrApiKey };

  app.post(
    "/api/v1/upload",
    {
      schema: {
        ...common,
        operationId: "createUpload",
        summary: "Start an upload: checks the declared file and returns a URL to PUT its bytes to",
        description:
          "The upload flow: 1. this call, with the file's name, size, type and duration; 2. `PUT upload_url` with the bytes, " +
          "`Content-Type` as declared and exactly `file_size` bytes (answers 200; 400 for another length or type, 403 when the link expired " +
          "or was altered); 3. poll `getFile` until `ready` (or start the transcription at once: it waits for the file).",
        body: uploadRequestSchema,
        response: { 200: uploadResponseSchema, ...errors },
      },
    },
    async (request) => {
      const answer = await client.createUpload({
        userId: signedInUserId(request),
        fileName: request.body.file_name,
        fileSize: BigInt(request.body.file_size),
        contentType: request.body.content_type,
        duration: request.body.duration,
      });
      return {
        upload_url: answer.uploadUrl,
        file_id: answer.fileId,
        expires_at: (answer.expiresAt ? timestampDate(answer.expiresAt) : new Date()).toISOString(),
      };
    },
  );

  app.get(
    "/api/v1/files",
    { schema: { ...common, operationId: "listFiles", summary: "The caller's files, newest first", querystring: listQuery, response: { 200: fileListSchema, ...errors } } },
    async (request) => {
      const { limit, offset } = request.query;
      const page = await client.listFiles({ userId: signedInUserId(request), limit, offset });
      return { files: page.files.map(toFileJson), total_count: page.totalCount, limit, offset };
    },
  );

  app.get(
    "/api/v1/files/:id",
    { schema: { ...common, operationId: "getFile", summary: "One file and its processing state", params: idParams, response: { 200: fileSchema, ...errors } } },
    async (request) => {
      const { file } = await client.getFile({ userId: signedInUserId(request), fileId: request.params.id });
      if (!file) throw new AppError("not_found", "File not found");
      return toFileJson(file);
    },
  );

  app.delete(
    "/api/v1/files/:id",
    {
      schema: {
        ...common,
        operationId: "deleteFile",
        summary: "Delete a file and its stored audio",
        params: idParams,
        response: { 204: z.null().describe("Deleted"), ...errors },
      },
    },
    async (request, reply) => {
      await client.deleteFile({ userId: signedInUserId(request), fileId: request.params.id });
      return reply.code(204).send(null);
    },
  );

  app.get(
    "/api/v1/files/:id/audio-url",
    {
      schema: {
        ...common,
        operationId: "getFileAudioUrl",
        summary: "A short-lived URL the audio element can play and seek",
        params: idParams,
        response: { 200: audioUrlSchema, ...errors },
      },
    },
    async (request) => {
      const answer = await client.getAudioUrl({ userId: signedInUserId(request), fileId: request.params.id });
      return { url: answer.url, expires_at: (answer.expiresAt ? timestampDate(answer.expiresAt) : new Date()).toISOString() };
    },
  );

  app.post(
    "/api/v1/retrieve",
    {
      schema: {
        ...common,
        operationId: "importFromUrl",
        summary: "Import a media file from a public http(s) URL; poll the file until ready or failed",
        body: z.object({ url: z.string().max(4096) }).meta({ id: "RetrieveRequest", description: "A public http(s) URL of an audio or video file" }),
        response: { 200: z.object({ file_id: z.string() }).meta({ id: "RetrieveResponse", description: "The import started; poll the file" }), ...errors },
      },
    },
    async (request) => ({ file_id: (await client.importFromUrl({ userId: signedInUserId(request), url: request.body.url })).fileId }),
  );
};
