import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../src/errors.js";
import { RangeNotSatisfiableError } from "../../src/storage/port.js";
import { S3ObjectStorage } from "../../src/storage/s3.js";
import { generatedStream } from "./helpers.js";
import { minioAvailability, startMinio, type MinioServer } from "./minio.js";

const availability = await minioAvailability();
const BUCKET = "transcribe-test";

describe.skipIf(!availability.ok)("S3ObjectStorage against a real MinIO", () => {
  let minio: MinioServer;
  let storage: S3ObjectStorage;

  beforeAll(async () => {
    minio = await startMinio();
    const admin = new S3Client({
      region: "us-east-1",
      endpoint: minio.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey },
    });
    await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
    admin.destroy();
    storage = new S3ObjectStorage({
      bucket: BUCKET,
      region: "us-east-1",
      endpoint: minio.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey },
      multipartPartSize: 5 * 1024 * 1024,
    });
  }, 180_000);

  afterAll(async () => {
    storage?.destroy();
    await minio?.stop();
  });

  const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");
  async function read(body: Readable): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  it("answers ping, and names a missing bucket", async () => {
    await storage.ping();
    const missing = new S3ObjectStorage({
      bucket: "no-such-bucket",
      region: "us-east-1",
      endpoint: minio.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey },
    });
    await expect(missing.ping()).rejects.toMatchObject({ code: "unavailable", message: expect.stringContaining("no-such-bucket") });
    missing.destroy();
  });

  it("streams an object of known length in and out, heads it and deletes it idempotently", async () => {
    const data = generatedStream(3 * 1024 * 1024 + 17);
    const stored = await storage.putObject("it/stream.bin", data.stream(), { contentType: "audio/mpeg", contentLength: data.size });
    expect(stored).toMatchObject({ key: "it/stream.bin", size: data.size, contentType: "audio/mpeg" });
    const object = await storage.getObject("it/stream.bin");
    expect(object.size).toBe(data.size);
    expect(object.contentType).toBe("audio/mpeg");
    expect(sha256(await read(object.body))).toBe(data.sha256);
    expect(await storage.headObject("it/stream.bin")).toMatchObject({ size: data.size, contentType: "audio/mpeg" });
    await storage.deleteObject("it/stream.bin");
    await storage.deleteObject("it/stream.bin");
    expect(await storage.headObject("it/stream.bin")).toBeNull();
    await expect(storage.getObject("it/stream.bin")).rejects.toMatchObject({ code: "not_found" });
  });

  it("stores a stream of unknown length in parts, never more than one part in memory", async () => {
    const data = generatedStream(12 * 1024 * 1024 + 5);
    const stored = await storage.putObject("it/multipart.bin", data.stream());
    expect(stored.size).toBe(data.size);
    expect(stored.contentType).toBe("application/octet-stream");
    expect(sha256(await read((await storage.getObject("it/multipart.bin")).body))).toBe(data.sha256);
    const small = await storage.putObject("it/small.bin", Readable.from([Buffer.from("tiny")]), { contentType: "text/plain" });
    expect(small).toMatchObject({ size: 4, contentType: "text/plain" });
    const bytes = await storage.putObject("it/bytes.bin", new Uint8Array([1, 2, 3]));
    expect(bytes.size).toBe(3);
  });

  it("refuses a body longer or shorter than declared and stores nothing", async () => {
    const data = generatedStream(200_000);
    await expect(storage.putObject("it/long.bin", data.stream(), { contentLength: 100_000 })).rejects.toThrow(
      "Upload sent more than the 100000 bytes declared",
    );
    await expect(storage.putObject("it/short.bin", data.stream(), { contentLength: 300_000 })).rejects.toThrow(
      "Upload sent only 200000 of the 300000 bytes declared",
    );
    await expect(storage.putObject("it/short.bin", new Uint8Array(3), { contentLength: 4 })).rejects.toBeInstanceOf(AppError);
    expect(await storage.headObject("it/long.bin")).toBeNull();
    expect(await storage.headObject("it/short.bin")).toBeNull();
  });

  it("reads byte ranges like the local adapter", async () => {
    const data = randomBytes(1000);
    await storage.putObject("it/range.bin", data, { contentType: "audio/wav" });
    const middle = await storage.getObject("it/range.bin", { range: { start: 100, end: 199 } });
    expect(middle.contentRange).toEqual({ start: 100, end: 199, totalSize: 1000 });
    expect(middle.size).toBe(100);
    expect(await read(middle.body)).toEqual(data.subarray(100, 200));
    const open = await storage.getObject("it/range.bin", { range: { start: 990 } });
    expect(open.contentRange).toEqual({ start: 990, end: 999, totalSize: 1000 });
    await read(open.body);
    const suffix = await storage.getObject("it/range.bin", { range: { suffixLength: 5 } });
    expect(await read(suffix.body)).toEqual(data.subarray(995));
    const past = await storage.getObject("it/range.bin", { range: { start: 2000 } }).catch((e: unknown) => e);
    expect(past).toBeInstanceOf(RangeNotSatisfiableError);
    expect((past as RangeNotSatisfiableError).objectSize).toBe(1000);
  });

  it("deletes by string prefix, as S3 does", async () => {
    for (const key of ["users/42/a.mp3", "users/42/b/c.wav", "users/420/x.mp3", "users/43/y.mp3"]) {
      await storage.putObject(key, new Uint8Array([1]));
    }
    expect(await storage.deleteObjects("users/42/")).toEqual({ deleted: 2 });
    expect(await storage.headObject("users/420/x.mp3")).not.toBeNull();
    expect(await storage.deleteObjects("users/4")).toEqual({ deleted: 2 });
    expect(await storage.deleteObjects("users/")).toEqual({ deleted: 0 });
  });

  describe("presigned PUT", () => {
    it("signs content type and length as headers, with no checksum parameters", async () => {
      const { url, expiresAt } = await storage.presignPut("up/a.mp3", { expiresInSeconds: 60, contentType: "audio/mpeg", contentLength: 10 });
      const query = new URL(url).searchParams;
      expect(query.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
      expect([...query.keys()].filter((k) => /checksum/i.test(k))).toEqual([]);
      expect(expiresAt.getTime() - Date.now()).toBeGreaterThan(55_000);
    });

    it("accepts exactly the bytes and type it was issued for", async () => {
      const body = randomBytes(1234);
      const { url } = await storage.presignPut("up/ok.mp3", { expiresInSeconds: 60, contentType: "audio/mpeg", contentLength: body.length });
      const response = await fetch(url, { method: "PUT", body, headers: { "content-type": "audio/mpeg" } });
      expect(response.status).toBe(200);
      expect(await storage.headObject("up/ok.mp3")).toMatchObject({ size: 1234, contentType: "audio/mpeg" });
    });

    it.each([
      ["more bytes", 1235, "audio/mpeg"],
      ["fewer bytes", 1000, "audio/mpeg"],
      ["another content type", 1234, "text/plain"],
    ])("refuses %s and stores nothing", async (_name, length, type) => {
      const key = `up/refused-${length}-${type.replace("/", "-")}.mp3`;
      const { url } = await storage.presignPut(key, { expiresInSeconds: 60, contentType: "audio/mpeg", contentLength: 1234 });
      const response = await fetch(url, { method: "PUT", body: randomBytes(length), headers: { "content-type": type } });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("SignatureDoesNotMatch");
      expect(await storage.headObject(key)).toBeNull();
    });

    it("refuses a tampered or expired URL", async () => {
      const body = randomBytes(100);
      const { url } = await storage.presignPut("up/t.mp3", { expiresInSeconds: 1, contentType: "audio/mpeg", contentLength: 100 });
      const tampered = new URL(url);
      tampered.pathname = tampered.pathname.replace("t.mp3", "u.mp3");
      expect((await fetch(tampered, { method: "PUT", body, headers: { "content-type": "audio/mpeg" } })).status).toBe(403);
      await new Promise((r) => setTimeout(r, 2_100));
      const expired = await fetch(url, { method: "PUT", body, headers: { "content-type": "audio/mpeg" } });
      expect(expired.status).toBe(403);
      expect(await expired.text()).toMatch(/expired/i);
      expect(await storage.headObject("up/t.mp3")).toBeNull();
      expect(await storage.headObject("up/u.mp3")).toBeNull();
    });
  });

  it("presigns GET URLs a media element can seek in, with an optional download name", async () => {
    const data = randomBytes(5000);
    await storage.putObject("get/a.wav", data, { contentType: "audio/wav" });
    const { url } = await storage.presignGet("get/a.wav", { expiresInSeconds: 60 });
    const part = await fetch(url, { headers: { range: "bytes=4000-" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe("bytes 4000-4999/5000");
    expect(Buffer.from(await part.arrayBuffer())).toEqual(data.subarray(4000));
    const named = await storage.presignGet("get/a.wav", { expiresInSeconds: 60, fileName: "Résumé de réunion.wav" });
    const download = await fetch(named.url);
    expect(download.headers.get("content-disposition")).toBe(
      `attachment; filename="Resume de reunion.wav"; filename*=UTF-8''R%C3%A9sum%C3%A9%20de%20r%C3%A9union.wav`,
    );
    await download.arrayBuffer();
  });

  it("refuses invalid keys before any request", async () => {
    await expect(storage.putObject("../escape", new Uint8Array(1))).rejects.toMatchObject({ code: "invalid_argument" });
    await expect(storage.presignPut("a//b", { expiresInSeconds: 60, contentType: "audio/mpeg", contentLength: 1 })).rejects.toMatchObject({
      code: "invalid_argument",
    });
  });
});

it("S3ObjectStorage names every configuration problem", () => {
  expect(() => new S3ObjectStorage({ bucket: "", region: "", multipartPartSize: 1 })).toThrow(
    /S3 bucket is required[\s\S]*S3 region is required[\s\S]*part size/,
  );
});
