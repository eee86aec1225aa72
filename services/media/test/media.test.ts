import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { fromBinary } from "@bufbuild/protobuf";
import { newEvent, toEnvelope } from "@transcribe/platform";
import { createTestDatabase } from "@transcribe/platform/testing";
import {
  FileUploadedSchema,
  StorageAction,
  StorageNotificationSchema,
  TranscriptDeletedSchema,
  UserDeletedSchema,
} from "@transcribe/proto/events/v1/events";
import { FileStatus, type File } from "@transcribe/proto/media/v1/media";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messages, parseChunkKey } from "../src/domain/rules.js";
import { checkTools, wavDataBytes } from "../src/processing/ffmpeg.js";
import { ffmpegPath, ffprobePath } from "../src/testing/tools.js";
import {
  makeAcceptedFixtures,
  makeLongSpeech,
  makeSilentVideo,
  truncate,
  type AcceptedKind,
  type Fixture,
} from "./fixtures.js";
import { objectsLeft, startMedia, storedFiles, waitFor, type MediaHarness } from "./harness.js";

const ALICE = "user_alice";
const BOB = "user_bob";
/** 8 s of processed audio per chunk (16 kHz mono 16-bit + header), 1 s overlap. */
const CHUNK_SECONDS = 8;
const CHUNK_BYTES = CHUNK_SECONDS * 32_000 + 44;

let media: MediaHarness;
let dir: string;
let fixtures: Record<AcceptedKind, Fixture>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "media-fixtures-"));
  [media, fixtures] = await Promise.all([
    startMedia({
      env: {
        MEDIA_CHUNK_MAX_BYTES: String(CHUNK_BYTES),
        MEDIA_CHUNK_OVERLAP_SECONDS: "1",
        MEDIA_IMPORT_ALLOW_CIDRS: "127.0.0.2/32",
      },
    }),
    makeAcceptedFixtures(dir),
  ]);
}, 120_000);

afterAll(async () => {
  await media?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function createUpload(user: string, fixture: Pick<Fixture, "fileName" | "size" | "contentType">, duration = 999) {
  return media.client.createUpload({
    userId: user,
    fileName: fixture.fileName,
    fileSize: BigInt(fixture.size),
    contentType: fixture.contentType,
    duration,
  });
}

async function put(url: string, body: Uint8Array, contentType: string) {
  const response = await fetch(url, { method: "PUT", body, headers: { "content-type": contentType } });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as { error?: { message: string } }) : {} };
}

async function uploadFixture(user: string, fixture: Fixture, declaredDuration = 999) {
  const upload = await createUpload(user, fixture, declaredDuration);
  const response = await put(upload.uploadUrl, await readFile(fixture.path), fixture.contentType);
  expect(response.status).toBe(200);
  return upload.fileId;
}

async function settled(user: string, fileId: string): Promise<File> {
  return waitFor(async () => {
    const { file } = await media.client.getFile({ userId: user, fileId });
    return file && (file.status === FileStatus.READY || file.status === FileStatus.FAILED) ? file : undefined;
  }, `file ${fileId} to be processed`, 60_000);
}

async function objectsOf(fileId: string): Promise<string[]> {
  return (await storedFiles(media.storageDir)).filter((f) => f.includes(fileId));
}

async function rpcError(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("expected the call to fail");
}

describe("ffmpeg and ffprobe", () => {
  it("are found on this machine", async () => {
    const versions = await checkTools({ ffmpeg: ffmpegPath, ffprobe: ffprobePath });
    expect(versions.ffmpeg).toMatch(/^ffmpeg version/);
  });

  it("the service refuses to start without them, saying what to install", async () => {
    const database = await createTestDatabase("media_main");
    try {
      const child = spawn(process.execPath, ["--import", "tsx", path.resolve(import.meta.dirname, "../src/main.ts")], {
        env: {
          ...process.env,
          DATABASE_URL: database.url,
          EVENT_BUS_DATABASE_URL: database.url,
          FFMPEG_PATH: "/nonexistent/ffmpeg",
          PORT: "0",
          LOG_LEVEL: "silent",
          DATA_DIR: dir,
        },
        stdio: ["ignore", "ignore", "pipe"],
      });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
      const code = await new Promise((resolve) => child.once("exit", resolve));
      expect(code).toBe(1);
      expect(stderr).toContain('media: media needs ffmpeg and ffprobe, but ffmpeg ("/nonexistent/ffmpeg"');
      expect(stderr).toContain("apt-get install ffmpeg");
    } finally {
      await database.drop();
    }
  }, 60_000);

  it("missing ones are named with what to install", async () => {
    await expect(checkTools({ ffmpeg: "/nonexistent/ffmpeg", ffprobe: ffprobePath })).rejects.toThrow(
      /media needs ffmpeg and ffprobe, but ffmpeg \("\/nonexistent\/ffmpeg".*apt-get install ffmpeg/,
    );
  });
});

describe("every accepted type", () => {
  const kinds: AcceptedKind[] = ["mp3", "wav", "m4a", "flac", "ogg", "webm-audio", "mp4-video", "webm-video"];

  it.each(kinds)("%s is accepted, probed, normalised to 16 kHz mono, and its real duration recorded", async (kind) => {
    const fixture = fixtures[kind];
    // The browser's claim (999 s) is not what gets recorded.
    const fileId = await uploadFixture(ALICE, fixture, 999);
    const file = await settled(ALICE, fileId);
    expect(file.error).toBeUndefined();
    expect(file.status).toBe(FileStatus.READY);
    expect(file.duration).toBeGreaterThan(fixture.speechSeconds - 0.15);
    expect(file.duration).toBeLessThan(fixture.speechSeconds + 0.15);
    expect(Number(file.fileSize)).toBe(fixture.size);
    expect(file.processedKey).toBe(`media/${fileId}/audio-16k-mono.wav`);
    expect(file.chunks).toEqual([]); // about 5 s of speech fits in one 8-s chunk: not split
    expect(file.rawKey).toMatch(new RegExp(`^media/${fileId}/raw\\.`));

    // The raw object is kept byte for byte; the processed one is 16 kHz mono PCM.
    const raw = path.join(media.storageDir, file.rawKey);
    expect(await readFile(raw)).toEqual(await readFile(fixture.path));
    const processed = path.join(media.storageDir, file.processedKey!);
    const header = (await readFile(processed)).subarray(0, 44);
    expect(header.toString("ascii", 0, 4)).toBe("RIFF");
    expect(header.readUInt16LE(20)).toBe(1); // PCM
    expect(header.readUInt16LE(22)).toBe(1); // mono
    expect(header.readUInt32LE(24)).toBe(16_000);
    expect(header.readUInt16LE(34)).toBe(16);
    expect((await wavDataBytes(processed)) / 32_000).toBeCloseTo(file.duration, 3);
  });
});

describe("chunks", () => {
  it("split long audio into overlapping pieces each within the size limit", async () => {
    const longDir = await mkdtemp(path.join(dir, "long-"));
    const fixture = await makeLongSpeech(longDir, 4);
    const fileId = await uploadFixture(ALICE, fixture);
    const file = await settled(ALICE, fileId);
    expect(file.status).toBe(FileStatus.READY);
    const spans = file.chunks.map((key) => parseChunkKey(key)!);
    expect(spans.length).toBeGreaterThanOrEqual(3);
    spans.forEach((span, index) => {
      expect(span.index).toBe(index);
      // 8-s chunks, each starting 1 s before the previous one ended
      expect(span.startMs).toBe(index * (CHUNK_SECONDS - 1) * 1000);
    });
    let covered = 0;
    for (const [index, key] of file.chunks.entries()) {
      const object = path.join(media.storageDir, key);
      const bytes = (await readFile(object)).length;
      expect(bytes).toBeLessThanOrEqual(CHUNK_BYTES);
      const seconds = (await wavDataBytes(object)) / 32_000;
      if (index < file.chunks.length - 1) expect(seconds).toBeCloseTo(CHUNK_SECONDS, 1);
      covered = spans[index]!.startMs / 1000 + seconds;
    }
    expect(covered).toBeCloseTo(file.duration, 1);
  });
});

describe("refusals before upload (docs/requirements.md: Validation, word for word)", () => {
  const base = { fileName: "talk.mp3", size: 1000, contentType: "audio/mpeg" };
  const cases: Array<[string, Partial<typeof base> & { duration?: number }, string]> = [
    ["an empty file", { size: 0 }, "File cannot be empty"],
    ["100 MB + 1 byte", { size: 100 * 1024 * 1024 + 1 }, "File too large (max 100MB)"],
    [
      "an unknown type",
      { contentType: "application/pdf" },
      "Invalid file type. Allowed types: audio/mpeg, audio/wav, audio/x-wav, audio/mp4, audio/x-m4a, audio/flac, audio/ogg, audio/webm, video/mp4, video/webm",
    ],
    ["a name without an extension", { fileName: "recording" }, "Filename must have an extension"],
    ["a duration that is not positive", { duration: 0 }, "Duration must be a positive number of seconds"],
  ];

  it.each(cases)("%s", async (_name, change, message) => {
    const before = await storedFiles(media.storageDir);
    const error = await rpcError(createUpload(ALICE, { ...base, ...change }, change.duration ?? 10));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toBe(message);
    expect(await storedFiles(media.storageDir)).toEqual(before);
  });

  it("accepts exactly 100 MB", async () => {
    const upload = await createUpload(BOB, { ...base, size: 100 * 1024 * 1024 });
    expect(upload.uploadUrl).toContain(`/api/v1/storage/media/${upload.fileId}/raw.mp3?`);
    await media.client.deleteFile({ userId: BOB, fileId: upload.fileId });
  });
});

describe("refusals after upload: nothing is left in storage", () => {
  it("a .mp3 name with text bytes", async () => {
    const text = new TextEncoder().encode("These are not the bytes of a recording.\n".repeat(20));
    const upload = await createUpload(ALICE, { fileName: "notes.mp3", size: text.length, contentType: "audio/mpeg" });
    expect((await put(upload.uploadUrl, text, "audio/mpeg")).status).toBe(200);
    const file = await settled(ALICE, upload.fileId);
    expect(file.status).toBe(FileStatus.FAILED);
    expect(file.error).toBe(messages.notMedia);
    expect(file.error).toBe("The file is not a valid audio or video file");
    expect(await objectsLeft(media.storageDir, upload.fileId)).toEqual([]);
  });

  it("a video without audio", async () => {
    const fixture = await makeSilentVideo(dir);
    const fileId = await uploadFixture(ALICE, fixture);
    const file = await settled(ALICE, fileId);
    expect(file.status).toBe(FileStatus.FAILED);
    expect(file.error).toBe("The file has no audio track");
    expect(await objectsLeft(media.storageDir, fileId)).toEqual([]);
  });

  it.each([
    ["m4a", 0.6],
    ["flac", 0.4],
  ] as const)("a truncated %s", async (kind, fraction) => {
    const fixture = await truncate(fixtures[kind], dir, fraction);
    const fileId = await uploadFixture(ALICE, fixture);
    const file = await settled(ALICE, fileId);
    expect(file.status).toBe(FileStatus.FAILED);
    expect(file.error).toBe("The file is damaged or incomplete");
    expect(await objectsLeft(media.storageDir, fileId)).toEqual([]);
  });

  it("a declared size that differs from the bytes sent", async () => {
    const bytes = await readFile(fixtures.mp3.path);
    const upload = await createUpload(ALICE, { ...fixtures.mp3, size: bytes.length - 10 });
    const refused = await put(upload.uploadUrl, bytes, "audio/mpeg");
    expect(refused.status).toBe(400);
    expect(refused.body.error?.message).toBe(`The upload must be exactly ${bytes.length - 10} bytes`);

    // Streamed without a length, the store counts and stops at the first byte too many.
    const streamed = await fetch(upload.uploadUrl, {
      method: "PUT",
      headers: { "content-type": "audio/mpeg" },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(bytes);
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(streamed.status).toBe(400);
    expect(((await streamed.json()) as { error: { message: string } }).error.message).toBe(
      `Upload sent more than the ${bytes.length - 10} bytes declared`,
    );
    expect(await objectsLeft(media.storageDir, upload.fileId)).toEqual([]);
    const { file } = await media.client.getFile({ userId: ALICE, fileId: upload.fileId });
    expect(file?.status).toBe(FileStatus.UPLOADING);
  });

  it("an expired upload URL", async () => {
    const upload = await createUpload(ALICE, fixtures.mp3);
    media.clock.skewMs = (media.config.MEDIA_UPLOAD_URL_TTL_SECONDS + 1) * 1000;
    try {
      const refused = await put(upload.uploadUrl, await readFile(fixtures.mp3.path), "audio/mpeg");
      expect(refused.status).toBe(403);
      expect(refused.body.error?.message).toBe("This link has expired");
    } finally {
      media.clock.skewMs = 0;
    }
    expect(await objectsLeft(media.storageDir, upload.fileId)).toEqual([]);
  });

  it("a tampered upload URL", async () => {
    const upload = await createUpload(ALICE, fixtures.mp3);
    const bigger = new URL(upload.uploadUrl);
    bigger.searchParams.set("len", String(fixtures.mp3.size + 1));
    const other = new URL(upload.uploadUrl);
    other.pathname = other.pathname.replace(upload.fileId, "00000000-0000-4000-8000-000000000000");
    for (const url of [bigger, other]) {
      const refused = await put(url.href, await readFile(fixtures.mp3.path), "audio/mpeg");
      expect(refused.status).toBe(403);
      expect(refused.body.error?.message).toBe("This link is invalid or has been altered");
    }
    expect(await storedFiles(media.storageDir)).not.toContainEqual(expect.stringContaining("00000000-0000-4000"));
    expect(await objectsLeft(media.storageDir, upload.fileId)).toEqual([]);
  });

  it("another user's file_id is not found, whatever the call", async () => {
    const fileId = await uploadFixture(ALICE, fixtures.wav);
    await settled(ALICE, fileId);
    for (const call of [
      () => media.client.getFile({ userId: BOB, fileId }),
      () => media.client.getAudioUrl({ userId: BOB, fileId }),
      () => media.client.deleteFile({ userId: BOB, fileId }),
      () => media.client.completeUpload({ userId: BOB, fileId }),
    ]) {
      const error = await rpcError(call());
      expect(error.code).toBe(Code.NotFound);
      expect(error.rawMessage).toBe("File not found");
    }
    const { files } = await media.client.listFiles({ userId: BOB });
    expect(files.map((f) => f.id)).not.toContain(fileId);
    expect((await media.client.getFile({ userId: ALICE, fileId })).file?.status).toBe(FileStatus.READY);
  });
});

describe("completion comes from storage, never from the client alone", () => {
  it("CompleteUpload before the PUT is refused and the record stays UPLOADING", async () => {
    const upload = await createUpload(ALICE, fixtures.ogg);
    const error = await rpcError(media.client.completeUpload({ userId: ALICE, fileId: upload.fileId }));
    expect(error.code).toBe(Code.FailedPrecondition);
    expect((await media.client.getFile({ userId: ALICE, fileId: upload.fileId })).file?.status).toBe(FileStatus.UPLOADING);
  });

  it("the PUT handler's notification and FileUploaded (with the measured duration) go through the outbox", async () => {
    const fileId = await uploadFixture(ALICE, fixtures.flac, 123);
    const file = await settled(ALICE, fileId);
    const rows = await media.db.selectFrom("platform_outbox").selectAll().where("key", "in", [fileId, file.rawKey]).execute();
    const uploaded = rows.filter((r) => r.type === FileUploadedSchema.typeName);
    expect(uploaded).toHaveLength(1);
    const event = fromBinary(FileUploadedSchema, uploaded[0]!.payload);
    expect(event).toMatchObject({ fileId, userId: ALICE, fileName: "talk.flac", fileSize: BigInt(fixtures.flac.size) });
    expect(event.duration).toBeCloseTo(file.duration, 6);
    const put = rows.find((r) => r.type === StorageNotificationSchema.typeName);
    const notification = fromBinary(StorageNotificationSchema, put!.payload);
    expect(notification).toMatchObject({ action: StorageAction.PUT_OBJECT, bucket: "local", key: file.rawKey, size: BigInt(fixtures.flac.size) });
    // Completing again changes nothing.
    expect((await media.client.completeUpload({ userId: ALICE, fileId })).file?.status).toBe(FileStatus.READY);
  });
});

describe("files", () => {
  it("lists a user's files newest first, paged, with the total", async () => {
    const user = "user_lister";
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await createUpload(user, { ...fixtures.mp3, fileName: `f${i}.mp3` })).fileId);
    const first = await media.client.listFiles({ userId: user, limit: 2, offset: 0 });
    expect(first.totalCount).toBe(3);
    expect(first.files.map((f) => f.id)).toEqual([ids[2], ids[1]]);
    const second = await media.client.listFiles({ userId: user, limit: 2, offset: 2 });
    expect(second.files.map((f) => f.id)).toEqual([ids[0]]);
    expect((await rpcError(media.client.listFiles({ userId: user, limit: -1 }))).code).toBe(Code.InvalidArgument);
  });

  it("gives a short-lived audio URL that plays and seeks (HTTP ranges)", async () => {
    const fileId = await uploadFixture(ALICE, fixtures.m4a);
    const file = await settled(ALICE, fileId);
    const { url, expiresAt } = await media.client.getAudioUrl({ userId: ALICE, fileId });
    const lifetime = Number(expiresAt!.seconds) - Date.now() / 1000;
    expect(lifetime).toBeGreaterThan(media.config.MEDIA_AUDIO_URL_TTL_SECONDS - 5);
    expect(lifetime).toBeLessThanOrEqual(media.config.MEDIA_AUDIO_URL_TTL_SECONDS);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("audio/wav");
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    const total = (await whole.arrayBuffer()).byteLength;
    const part = await fetch(url, { headers: { range: "bytes=1000-1999" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 1000-1999/${total}`);
    expect((await part.arrayBuffer()).byteLength).toBe(1000);
    expect(file.processedKey).toBeDefined();
  });

  it("DeleteFile removes the record and every object, with DeleteObject notifications", async () => {
    const fileId = await uploadFixture(ALICE, fixtures.ogg);
    const file = await settled(ALICE, fileId);
    expect((await objectsOf(fileId)).length).toBeGreaterThan(0);
    await media.client.deleteFile({ userId: ALICE, fileId });
    expect(await objectsLeft(media.storageDir, fileId)).toEqual([]);
    expect((await rpcError(media.client.getFile({ userId: ALICE, fileId }))).code).toBe(Code.NotFound);
    const deletions = await media.db
      .selectFrom("platform_outbox")
      .selectAll()
      .where("type", "=", StorageNotificationSchema.typeName)
      .where("key", "in", [file.rawKey, file.processedKey!])
      .execute();
    const actions = deletions.map((r) => fromBinary(StorageNotificationSchema, r.payload).action);
    expect(actions.filter((a) => a === StorageAction.DELETE_OBJECT)).toHaveLength(2);
  });
});

describe("events media consumes", () => {
  it("TranscriptDeleted deletes that transcript's audio objects", async () => {
    const fileId = await uploadFixture(ALICE, fixtures.wav);
    const file = await settled(ALICE, fileId);
    // Someone else's transcript naming Alice's keys touches nothing.
    await media.bus.publish([
      toEnvelope(newEvent(TranscriptDeletedSchema, { transcriptId: "t-bob", userId: BOB, rawKey: file.rawKey, processedKey: file.processedKey! })),
    ]);
    await media.bus.publish([
      toEnvelope(newEvent(TranscriptDeletedSchema, { transcriptId: "t-1", userId: ALICE, rawKey: file.rawKey, processedKey: file.processedKey! })),
    ]);
    await waitFor(async () => (await objectsOf(fileId)).length === 0, "objects to be deleted");
    expect((await rpcError(media.client.getFile({ userId: ALICE, fileId }))).code).toBe(Code.NotFound);
  });

  it("UserDeleted deletes every file and object of that user only", async () => {
    const user = "user_leaving";
    const mine = [await uploadFixture(user, fixtures.mp3), await uploadFixture(user, fixtures.ogg)];
    await Promise.all(mine.map((id) => settled(user, id)));
    const kept = await uploadFixture(ALICE, fixtures.mp3);
    await settled(ALICE, kept);
    await media.bus.publish([toEnvelope(newEvent(UserDeletedSchema, { userId: user }))]);
    await waitFor(async () => (await media.client.listFiles({ userId: user })).totalCount === 0, "the user's files to go");
    for (const id of mine) expect(await objectsLeft(media.storageDir, id)).toEqual([]);
    expect((await objectsOf(kept)).length).toBeGreaterThan(0);
  });
});

describe("import from a URL", () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      if (url.pathname === "/talk.mp3") {
        const bytes = await readFile(fixtures.mp3.path);
        res.writeHead(200, { "content-type": "audio/mpeg", "content-length": bytes.length }).end(bytes);
      } else if (url.pathname === "/binary/recording.ogg") {
        res.writeHead(200, { "content-type": "application/octet-stream" }).end(await readFile(fixtures.ogg.path));
      } else if (url.pathname === "/page.html") {
        res.writeHead(200, { "content-type": "text/html" }).end("<html></html>");
      } else if (url.pathname === "/to-loopback") {
        res.writeHead(302, { location: `http://127.0.0.1:${(server.address() as { port: number }).port}/talk.mp3` }).end();
      } else if (url.pathname === "/to-metadata") {
        res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" }).end();
      } else if (url.pathname === "/redirect") {
        res.writeHead(302, { location: "/talk.mp3" }).end();
      } else {
        res.writeHead(404).end();
      }
    });
    // 127.0.0.2 is allowed by MEDIA_IMPORT_ALLOW_CIDRS in this test; 127.0.0.1 is not.
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
    base = `http://127.0.0.2:${(server.address() as { port: number }).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("fetches a public media URL (following a redirect) into a new file that is verified like an upload", async () => {
    const { fileId } = await media.client.importFromUrl({ userId: ALICE, url: `${base}/redirect` });
    const file = await settled(ALICE, fileId);
    expect(file.error).toBeUndefined();
    expect(file.status).toBe(FileStatus.READY);
    expect(file.fileName).toBe("talk.mp3"); // the name where the redirect led
    expect(file.contentType).toBe("audio/mpeg");
    expect(Number(file.fileSize)).toBe(fixtures.mp3.size);
    expect(file.duration).toBeCloseTo(fixtures.mp3.speechSeconds, 0);
    expect(await readFile(path.join(media.storageDir, file.rawKey))).toEqual(await readFile(fixtures.mp3.path));
  });

  it("judges a server's 'binary' answer by the file name", async () => {
    const { fileId } = await media.client.importFromUrl({ userId: ALICE, url: `${base}/binary/recording.ogg` });
    const file = await settled(ALICE, fileId);
    expect(file.status).toBe(FileStatus.READY);
    expect(file.fileName).toBe("recording.ogg");
  });

  it.each([
    ["loopback", "http://127.0.0.1:9/a.mp3", "This URL points to a private, local or reserved network address and cannot be imported"],
    ["localhost by name", "http://localhost:9/a.mp3", "This URL points to a private, local or reserved network address and cannot be imported"],
    ["IPv6 loopback", "http://[::1]:9/a.mp3", "This URL points to a private, local or reserved network address and cannot be imported"],
    ["IPv4-mapped loopback", "http://[::ffff:127.0.0.1]:9/a.mp3", "This URL points to a private, local or reserved network address and cannot be imported"],
    ["private", "http://10.1.2.3/a.mp3", "This URL points to a private, local or reserved network address and cannot be imported"],
    ["private 192.168", "http://192.168.1.1/a.mp3", "This URL points to a private, local or reserved network address and cannot be imported"],
    ["cloud metadata", "http://169.254.169.254/latest/meta-data/", "This URL points to a private, local or reserved network address and cannot be imported"],
    ["decimal loopback", "http://2130706433/a.mp3", "This URL points to a private, local or reserved network address and cannot be imported"],
    ["ftp", "ftp://example.com/a.mp3", "Only http:// and https:// URLs can be imported"],
    ["file", "file:///etc/passwd", "Only http:// and https:// URLs can be imported"],
    ["not a URL", "not a url", "This is not a valid URL"],
  ])("refuses %s at once", async (_name, url, message) => {
    const error = await rpcError(media.client.importFromUrl({ userId: ALICE, url }));
    expect(error.code).toBe(Code.InvalidArgument);
    expect(error.rawMessage).toBe(message);
  });

  it.each([
    ["a redirect to loopback", "/to-loopback", "This URL points to a private, local or reserved network address and cannot be imported"],
    ["a redirect to cloud metadata", "/to-metadata", "This URL points to a private, local or reserved network address and cannot be imported"],
    [
      "a page that is not media",
      "/page.html",
      "Invalid file type. Allowed types: audio/mpeg, audio/wav, audio/x-wav, audio/mp4, audio/x-m4a, audio/flac, audio/ogg, audio/webm, video/mp4, video/webm",
    ],
    ["a missing file", "/nothing.mp3", "The URL answered with HTTP status 404"],
  ])("fails %s, keeping nothing", async (_name, target, message) => {
    const { fileId } = await media.client.importFromUrl({ userId: ALICE, url: `${base}${target}` });
    const file = await settled(ALICE, fileId);
    expect(file.status).toBe(FileStatus.FAILED);
    expect(file.error).toBe(message);
    expect(await objectsLeft(media.storageDir, fileId)).toEqual([]);
  });
});
