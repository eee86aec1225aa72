import { mkdirSync, watch } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import multipart from "@fastify/multipart";
import { AppError } from "@transcribe/platform";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readMultipartForm } from "../../src/developer/multipart-form.js";
import { createUploadSlots } from "../../src/developer/upload-slots.js";

/**
 * OpenAI's Node client streams its own multipart body: the file part first, the text fields
 * (model, language) after it, each in a chunk of its own. If the fields arrive while the
 * parser is still waiting for the file's reader (a busy disk), the request has ended before
 * they are parsed; they must still arrive. CI lost `model` this way under load ("400 model
 * is required"): @fastify/multipart 9 ended the parts on the request's 'close', which Node
 * emits as soon as the body has been read.
 */
describe("multipart forms with the file before the fields", () => {
  let app: FastifyInstance;
  let origin = "";
  const boundary = "b0undary";
  const fileHead = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`;
  const fieldsTail = `\r\n--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-tiny.en\r\n--${boundary}\r\nContent-Disposition: form-data; name="language"\r\n\r\nen\r\n--${boundary}--\r\n`;

  beforeAll(async () => {
    app = Fastify();
    await app.register(multipart);
    // The parser's contract, with a reader that holds each chunk of the file for 300 ms.
    app.post("/slow", async (request) => {
      const fields: Record<string, string> = {};
      let fileBytes = 0;
      for await (const part of request.parts()) {
        if (part.type === "file") {
          await pipeline(
            part.file,
            new Writable({
              write(chunk: Buffer, _encoding, done) {
                fileBytes += chunk.length;
                sleep(300).then(() => done());
              },
            }),
          );
        } else {
          fields[part.fieldname] = String(part.value);
        }
      }
      return { fields, fileBytes };
    });
    // The product's reader.
    const slots = createUploadSlots({ total: 4, perUser: 2 });
    app.post("/form", async (request) => {
      const form = await readMultipartForm(request, { maxFileBytes: 100 * 1024 * 1024, slots, userId: "u1" });
      try {
        return { fields: Object.fromEntries([...form.fields].map(([name, values]) => [name, values.at(-1)])), fileBytes: (await readFile(form.file!.path)).length };
      } finally {
        await form.dispose();
      }
    });
    origin = await app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(() => app.close());

  /** Sends the body as the client does, one piece at a time: 20 KB, 10 KB and 10 KB of file, then the fields. */
  const send = (url: string) =>
    new Promise<{ status: number; body: { fields: Record<string, string>; fileBytes: number } }>((resolve, reject) => {
      const request = http.request(`${origin}${url}`, { method: "POST", headers: { "content-type": `multipart/form-data; boundary=${boundary}` } }, (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      });
      request.on("error", reject);
      request.write(fileHead);
      request.write(new Uint8Array(20 * 1024));
      setTimeout(() => request.write(new Uint8Array(10 * 1024)), 50);
      setTimeout(() => request.write(new Uint8Array(10 * 1024)), 100);
      setTimeout(() => request.end(fieldsTail), 150);
    });

  it("fields that arrive while the file is still being read are not lost", async () => {
    expect(await send("/slow")).toEqual({ status: 200, body: { fields: { model: "whisper-tiny.en", language: "en" }, fileBytes: 40 * 1024 } });
  });

  it("readMultipartForm keeps the file and every field", async () => {
    expect(await send("/form")).toEqual({ status: 200, body: { fields: { model: "whisper-tiny.en", language: "en" }, fileBytes: 40 * 1024 } });
  });
});

/**
 * Whose fault a form that cannot be read is: a body that is not the multipart form its
 * content-type says is the client's (an invalid_argument, which the routes answer with 400),
 * a temporary file that cannot be written stays the server's.
 */
describe("multipart forms that cannot be read", () => {
  let app: FastifyInstance;
  let origin = "";
  let tmp = "";
  const previousTmp = process.env.TMPDIR;
  const fileHead = '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n';

  beforeAll(async () => {
    // readMultipartForm makes its folder in os.tmpdir(), which follows TMPDIR.
    tmp = await mkdtemp(path.join(os.tmpdir(), "bff-form-test-"));
    process.env.TMPDIR = tmp;
    app = Fastify();
    await app.register(multipart);
    const slots = createUploadSlots({ total: 4, perUser: 2 });
    app.post("/form", async (request) => {
      try {
        const form = await readMultipartForm(request, { maxFileBytes: 1024 * 1024, slots, userId: "u1" });
        await form.dispose();
        return { outcome: "read" };
      } catch (error) {
        return error instanceof AppError ? { outcome: error.code, message: error.message } : { outcome: "server", message: (error as Error).message };
      }
    });
    origin = await app.listen({ host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    process.env.TMPDIR = previousTmp;
    if (previousTmp === undefined) delete process.env.TMPDIR;
    await app.close();
    await rm(tmp, { recursive: true, force: true });
  });

  /** Sends the body in pieces, each `delay` ms after the one before. */
  const send = (contentType: string, pieces: Array<[delay: number, text: string]>) =>
    new Promise<{ outcome: string; message?: string }>((resolve, reject) => {
      const request = http.request(`${origin}/form`, { method: "POST", headers: { "content-type": contentType } }, (response) => {
        let text = "";
        response.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        response.on("end", () => resolve(JSON.parse(text)));
      });
      request.on("error", reject);
      let at = 0;
      for (const [delay, text] of pieces) {
        at += delay;
        setTimeout(() => request.write(text), at);
      }
      setTimeout(() => request.end(), at + 20);
    });

  it("a content-type without a boundary is the client's", async () => {
    expect(await send("multipart/form-data", [[0, `${fileHead}abc`]])).toEqual({
      outcome: "invalid_argument",
      message: "Malformed multipart form: the content-type header names no boundary",
    });
  });

  it("a body that ends inside the file part is the client's, whether it arrived at once or while the file was being written", async () => {
    const expected = { outcome: "invalid_argument", message: expect.stringMatching(/^Malformed multipart form: .*unexpected end of multipart data$/) };
    expect(await send("multipart/form-data; boundary=XYZ", [[0, `${fileHead}abc`]])).toEqual(expected);
    expect(await send("multipart/form-data; boundary=XYZ", [[0, fileHead], [100, "a".repeat(50_000)]])).toEqual(expected);
  });

  it("a temporary file that cannot be written is the server's", async () => {
    // A folder where the file is to be written: opening it fails (EISDIR), as a full or broken disk would.
    const watcher = watch(tmp, (_event, name) => {
      if (name?.startsWith("bff-form-")) mkdirSync(path.join(tmp, name, "upload"), { recursive: true });
    });
    try {
      const answer = await send("multipart/form-data; boundary=XYZ", [
        [0, '--XYZ\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n'],
        [300, `${fileHead}abc\r\n--XYZ--\r\n`],
      ]);
      expect(answer).toEqual({ outcome: "server", message: expect.stringContaining("EISDIR") });
    } finally {
      watcher.close();
    }
  });
});
