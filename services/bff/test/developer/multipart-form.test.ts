import { readFile } from "node:fs/promises";
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import multipart from "@fastify/multipart";
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
