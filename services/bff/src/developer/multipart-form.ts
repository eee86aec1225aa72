import "@fastify/multipart";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { AppError } from "@transcribe/platform";
import type { Multipart, MultipartFile } from "@fastify/multipart";
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
    for await (const part of partsOf(request, { fileSize: maxFileBytes, files: 1, fields: 50, fieldSize: 64 * 1024 })) {
      if (part.type === "file") {
        if (part.fieldname !== "file" || file) {
          part.file.resume();
          throw new AppError("invalid_argument", "Send exactly one file, in the field 'file'", { param: "file" });
        }
        const target = path.join(dir, "upload");
        await saveFile(part.file, target);
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
    throw error;
  }
  return { file, fields, dispose };
}

type PartsOptions = NonNullable<Parameters<FastifyRequest["parts"]>[0]>;

/**
 * The form's parts; a failure to read them is the client's: a body that is not the
 * multipart/form-data its content-type says (no boundary, cut off, garbage) makes busboy
 * throw plain Errors, which are 400s here, never the server's 500.
 */
async function* partsOf(request: FastifyRequest, limits: PartsOptions["limits"]): AsyncGenerator<Multipart> {
  const parts = request.parts({ limits });
  try {
    for (;;) {
      let next: IteratorResult<Multipart>;
      try {
        next = await parts.next();
      } catch (error) {
        throw asFormError(error);
      }
      if (next.done) return;
      yield next.value;
    }
  } finally {
    await parts.return?.(undefined);
  }
}

/**
 * Streams the file part to `target`. Which side failed first decides whose fault it is:
 * the part (the body ended inside the file) is the client's; the temporary file (disk
 * full, unwritable) is the server's and stays a 500. pipeline() passes each side's error on
 * to the other, so the first one to fail is noted as it happens.
 */
async function saveFile(source: MultipartFile["file"], target: string): Promise<void> {
  // The whole body may have been parsed before this part is read: busboy has then already
  // failed the part (the body ended inside it), and pipeline() only repeats that error.
  let failed: "part" | "disk" | undefined = source.errored ? "part" : undefined;
  const sink = createWriteStream(target);
  source.on("error", () => {
    failed ??= "part";
  });
  sink.on("error", () => {
    failed ??= "disk";
  });
  try {
    await pipeline(source, sink);
  } catch (error) {
    throw failed === "part" ? asFormError(error) : error;
  }
}

/**
 * A failure to parse the form as the client's 400: the plugin's own errors (FST_*: limits,
 * a premature close) and busboy's (plain Errors: "Multipart: Boundary not found",
 * "Unexpected end of multipart data", a boundary too long). A system error (a reset
 * connection) or a programming error (TypeError, ...) is passed on as it is.
 */
function asFormError(error: unknown): unknown {
  if (error instanceof AppError || !(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  const fromPlugin = typeof code === "string" && code.startsWith("FST_");
  const fromParser = code === undefined && Object.getPrototypeOf(error) === Error.prototype;
  if (fromPlugin) return new AppError("invalid_argument", error.message || MALFORMED, { param: "file" });
  if (fromParser) return new AppError("invalid_argument", parserMessage(error.message), { param: "file" });
  return error;
}

const MALFORMED = "Malformed multipart form";

/** busboy's words, as a sentence of ours: "Malformed multipart form: unexpected end of multipart data". */
function parserMessage(message: string): string {
  if (/boundary not found/i.test(message)) return `${MALFORMED}: the content-type header names no boundary`;
  if (!message) return MALFORMED;
  return `${MALFORMED}: ${message.charAt(0).toLowerCase()}${message.slice(1).replace(/\.$/, "")}`;
}
