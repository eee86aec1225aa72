import "@fastify/multipart";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { AppError } from "@transcribe/platform";
import type { FastifyRequest } from "fastify";
import type { UploadSlots } from "./upload-slots.js";

export interface ReceivedFile {
  /** A temporary file of the form's own; remove it with dispose(). */
  path: string;
  fileName: string;
  /** As the client labelled the part (often application/octet-stream). */
  mimeType: string;
  size: number;
}

export interface MultipartForm {
  file: ReceivedFile | undefined;
  /** Text fields by name; a name sent several times (timestamp_granularities[]) keeps every value. */
  fields: Map<string, string[]>;
  dispose(): Promise<void>;
}

/**
 * Reads a multipart form: the one `file` part streamed to a temporary file (never held in
 * memory; cut off at maxFileBytes), every other part as text. A second file part, or a file
 * part under another name, is refused: the routes take exactly OpenAI's fields. The form
 * holds one of the replica's upload slots (upload-slots.ts) from before the first byte is
 * written until dispose(), so temporary files never outgrow their directory.
 */
export async function readMultipartForm(request: FastifyRequest, options: { maxFileBytes: number; slots: UploadSlots; userId: string }): Promise<MultipartForm> {
  const { maxFileBytes } = options;
  if (!request.isMultipart()) throw new AppError("invalid_argument", "Send the request as multipart/form-data", { param: "file" });
  const release = options.slots.acquire(options.userId);
  let dir: string;
  try {
    dir = await mkdtemp(path.join(os.tmpdir(), "bff-form-"));
  } catch (error) {
    release();
    throw error;
  }
  const fields = new Map<string, string[]>();
  let file: ReceivedFile | undefined;
  const dispose = () => rm(dir, { recursive: true, force: true }).finally(release);
  try {
    for await (const part of request.parts({ limits: { fileSize: maxFileBytes, files: 1, fields: 50, fieldSize: 64 * 1024 } })) {
      if (part.type === "file") {
        if (part.fieldname !== "file" || file) {
          part.file.resume();
          throw new AppError("invalid_argument", "Send exactly one file, in the field 'file'", { param: "file" });
        }
        const target = path.join(dir, "upload");
        await pipeline(part.file, createWriteStream(target));
        if (part.file.truncated) throw new AppError("invalid_argument", `File too large (max ${Math.round(maxFileBytes / 1024 / 1024)}MB)`, { param: "file" });
        file = { path: target, fileName: part.filename || "upload", mimeType: part.mimetype, size: (await stat(target)).size };
      } else {
        const values = fields.get(part.fieldname) ?? [];
        values.push(String(part.value));
        fields.set(part.fieldname, values);
      }
    }
  } catch (error) {
    await dispose();
    if (error instanceof AppError) throw error;
    const code = (error as { code?: string }).code ?? "";
    if (code.startsWith("FST_")) throw new AppError("invalid_argument", (error as Error).message || "Malformed multipart form", { param: "file" });
    throw error;
  }
  return { file, fields, dispose };
}
