import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { CreateBucketCommand, PutBucketNotificationConfigurationCommand, S3Client } from "@aws-sdk/client-s3";
import { freePort } from "@transcribe/platform/testing";
import { S3ObjectStorage } from "@transcribe/platform/storage/s3";
import { FileStatus } from "@transcribe/proto/media/v1/media";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { minioAvailability, startMinio, type MinioServer } from "../../platform/test/storage/minio.js";
import { messages } from "../src/domain/rules.js";
import { makeAcceptedFixtures, type AcceptedKind, type Fixture } from "./fixtures.js";
import { startMedia, waitFor, type MediaHarness } from "./harness.js";

const availability = await minioAvailability();
const BUCKET = "media-test";
const TOKEN = "notification-token-for-tests";
const USER = "user_s3";

/**
 * The cluster path: presigned PUTs straight to a real MinIO, completion learnt from the
 * bucket's own webhook notifications (never from the client), objects read and written
 * through the S3 adapter.
 */
describe.skipIf(!availability.ok)("media on S3 (MinIO) with bucket notifications", () => {
  let minio: MinioServer;
  let media: MediaHarness;
  let storage: S3ObjectStorage;
  let dir: string;
  let fixtures: Record<AcceptedKind, Fixture>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "media-s3-"));
    const mediaPort = await freePort();
    [minio, fixtures] = await Promise.all([
      startMinio({
        MINIO_NOTIFY_WEBHOOK_ENABLE_MEDIA: "on",
        MINIO_NOTIFY_WEBHOOK_ENDPOINT_MEDIA: `http://127.0.0.1:${mediaPort}/storage/notifications`,
        MINIO_NOTIFY_WEBHOOK_AUTH_TOKEN_MEDIA: `Bearer ${TOKEN}`,
        // Kept on disk and retried while media is not up yet.
        MINIO_NOTIFY_WEBHOOK_QUEUE_DIR_MEDIA: path.join(dir, "queue"),
      }),
      makeAcceptedFixtures(dir),
    ]);
    const credentials = { accessKeyId: minio.accessKeyId, secretAccessKey: minio.secretAccessKey };
    const admin = new S3Client({ region: "us-east-1", endpoint: minio.endpoint, forcePathStyle: true, credentials });
    await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
    await admin.send(
      new PutBucketNotificationConfigurationCommand({
        Bucket: BUCKET,
        NotificationConfiguration: {
          QueueConfigurations: [{ QueueArn: "arn:minio:sqs::MEDIA:webhook", Events: ["s3:ObjectCreated:*", "s3:ObjectRemoved:*"] }],
        },
      }),
    );
    admin.destroy();
    storage = new S3ObjectStorage({ bucket: BUCKET, region: "us-east-1", endpoint: minio.endpoint, forcePathStyle: true, credentials });
    media = await startMedia({
      port: mediaPort,
      env: { STORAGE: "s3", STORAGE_NOTIFICATION_TOKEN: TOKEN, S3_BUCKET: BUCKET },
      storage: async () => ({ storage, bucket: BUCKET, close: async () => storage.destroy() }),
    });
  }, 300_000);

  afterAll(async () => {
    await media?.stop();
    await minio?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function upload(fixture: Fixture, bytes?: Uint8Array) {
    const body = bytes ?? (await readFile(fixture.path));
    const created = await media.client.createUpload({
      userId: USER,
      fileName: fixture.fileName,
      fileSize: BigInt(body.length),
      contentType: fixture.contentType,
      duration: 1,
    });
    expect(created.uploadUrl.startsWith(`${minio.endpoint}/${BUCKET}/media/${created.fileId}/`)).toBe(true);
    const put = await fetch(created.uploadUrl, { method: "PUT", body, headers: { "content-type": fixture.contentType } });
    expect(put.status).toBe(200);
    return created.fileId;
  }

  const settled = (fileId: string) =>
    waitFor(async () => {
      const { file } = await media.client.getFile({ userId: USER, fileId });
      return file && (file.status === FileStatus.READY || file.status === FileStatus.FAILED) ? file : undefined;
    }, "the bucket notification and processing", 60_000);

  it("a presigned PUT is noticed through the bucket's notification, processed and stored in S3", async () => {
    const fileId = await upload(fixtures["webm-audio"]);
    const file = await settled(fileId);
    expect(file.error).toBeUndefined();
    expect(file.status).toBe(FileStatus.READY);
    expect(file.duration).toBeCloseTo(fixtures["webm-audio"].speechSeconds, 0);
    expect(await storage.headObject(file.rawKey)).toMatchObject({ size: fixtures["webm-audio"].size });
    expect(await storage.headObject(file.processedKey!)).toMatchObject({ contentType: "audio/wav" });

    const { url } = await media.client.getAudioUrl({ userId: USER, fileId });
    const part = await fetch(url, { headers: { range: "bytes=0-99" } });
    expect(part.status).toBe(206);
    await part.arrayBuffer();

    await media.client.deleteFile({ userId: USER, fileId });
    expect(await storage.headObject(file.rawKey)).toBeNull();
    expect(await storage.headObject(file.processedKey!)).toBeNull();
  });

  it("text bytes under a .mp3 name are refused and deleted from the bucket", async () => {
    const text = new TextEncoder().encode("not audio at all\n".repeat(50));
    const fileId = await upload({ ...fixtures.mp3, fileName: "fake.mp3" }, text);
    const file = await settled(fileId);
    expect(file.status).toBe(FileStatus.FAILED);
    expect(file.error).toBe(messages.notMedia);
    expect(await storage.headObject(file.rawKey)).toBeNull();
  });

  it("S3 itself refuses a PUT of another size than declared", async () => {
    const bytes = await readFile(fixtures.mp3.path);
    const created = await media.client.createUpload({
      userId: USER,
      fileName: "talk.mp3",
      fileSize: BigInt(bytes.length - 1),
      contentType: "audio/mpeg",
      duration: 1,
    });
    const put = await fetch(created.uploadUrl, { method: "PUT", body: bytes, headers: { "content-type": "audio/mpeg" } });
    expect(put.status).toBe(403);
    const { file } = await media.client.getFile({ userId: USER, fileId: created.fileId });
    expect(file?.status).toBe(FileStatus.UPLOADING);
    expect(await storage.headObject(file!.rawKey)).toBeNull();
  });

  it("the notification endpoint refuses callers without the token", async () => {
    const response = await fetch(`${media.url}/storage/notifications`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer wrong" },
      body: JSON.stringify({ Records: [] }),
    });
    expect(response.status).toBe(401);
  });
});
