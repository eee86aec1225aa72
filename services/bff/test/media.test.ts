import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createLogger, loadConfig } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthHarness, signInWithMagicLink, startAuth } from "../../auth/test/harness.js";
import { makeAcceptedFixtures, type Fixture } from "../../media/test/fixtures.js";
import { startMedia, storedFiles, waitFor, type MediaHarness } from "../../media/test/harness.js";
import { buildBff } from "../src/app.js";
import { bffConfigSchema } from "../src/config.js";

const logger = createLogger("bff-media-test", "silent");

/**
 * The whole path a browser takes: the real BFF on a real port, the real auth service
 * (a magic-link session), the real media service with its local store, files made by
 * ffmpeg. The upload URL the BFF hands out is on the BFF's own origin.
 */
describe("uploads and files through the BFF", () => {
  let auth: AuthHarness;
  let media: MediaHarness;
  let bff: Awaited<ReturnType<typeof buildBff>>;
  let origin: string;
  let dir: string;
  let mp3: Fixture;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    const bffPort = await freePort();
    origin = `http://127.0.0.1:${bffPort}`;
    dir = await mkdtemp(path.join(os.tmpdir(), "bff-media-"));
    let fixtures;
    [auth, media, fixtures] = await Promise.all([
      startAuth(),
      startMedia({ env: { STORAGE_PUBLIC_URL: `${origin}/api/v1/storage` } }),
      makeAcceptedFixtures(dir),
    ]);
    mp3 = fixtures.mp3;
    bff = await buildBff(
      loadConfig(bffConfigSchema, { WEB_DIST_DIR: "/nonexistent", AUTH_URL: auth.server.url, MEDIA_URL: media.url }),
      logger,
    );
    await bff.listen({ host: "127.0.0.1", port: bffPort });
    alice = (await signInWithMagicLink(auth, "alice-media@example.com")).cookieHeader();
    bob = (await signInWithMagicLink(auth, "bob-media@example.com")).cookieHeader();
  }, 120_000);

  afterAll(async () => {
    await bff?.close();
    await media?.stop();
    await auth?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const api = (cookie: string | undefined, method: string, url: string, body?: unknown) =>
    fetch(`${origin}${url}`, {
      method,
      headers: { ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  const declare = (fixture: Fixture, change: Record<string, unknown> = {}) => ({
    file_name: fixture.fileName,
    file_size: fixture.size,
    content_type: fixture.contentType,
    duration: 42,
    ...change,
  });

  async function ready(cookie: string, id: string) {
    return waitFor(async () => {
      const file = (await (await api(cookie, "GET", `/api/v1/files/${id}`)).json()) as { status: string };
      return file.status === "ready" || file.status === "failed" ? file : undefined;
    }, "the file to be processed", 60_000);
  }

  it("upload: the declared file, a PUT to the BFF's origin, then a ready file with its measured duration", async () => {
    const started = await api(alice, "POST", "/api/v1/upload", declare(mp3));
    expect(started.status).toBe(200);
    const { upload_url, file_id, expires_at } = (await started.json()) as { upload_url: string; file_id: string; expires_at: string };
    expect(upload_url.startsWith(`${origin}/api/v1/storage/media/${file_id}/raw.mp3?`)).toBe(true);
    expect(new Date(expires_at).getTime()).toBeGreaterThan(Date.now());

    const put = await fetch(upload_url, { method: "PUT", body: await readFile(mp3.path), headers: { "content-type": mp3.contentType } });
    expect(put.status).toBe(200);
    const file = await ready(alice, file_id);
    expect(file).toMatchObject({ id: file_id, file_name: "talk.mp3", file_size: mp3.size, content_type: "audio/mpeg", status: "ready", error: null });
    expect((file as unknown as { duration: number }).duration).toBeCloseTo(mp3.speechSeconds, 0);
    // Object keys stay inside the services.
    expect(Object.keys(file).sort()).toEqual(["chunk_count", "content_type", "created_at", "duration", "error", "file_name", "file_size", "id", "status"]);

    const list = (await (await api(alice, "GET", "/api/v1/files?limit=10")).json()) as { files: Array<{ id: string }>; total_count: number };
    expect(list.files.map((f) => f.id)).toContain(file_id);
    expect(list.total_count).toBeGreaterThanOrEqual(1);

    const audio = (await (await api(alice, "GET", `/api/v1/files/${file_id}/audio-url`)).json()) as { url: string; expires_at: string };
    expect(audio.url.startsWith(`${origin}/api/v1/storage/`)).toBe(true);
    const part = await fetch(audio.url, { headers: { range: "bytes=0-43" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-type")).toBe("audio/wav");
    expect(Buffer.from(await part.arrayBuffer()).toString("ascii", 0, 4)).toBe("RIFF");

    // Another user: not found, whatever the route.
    for (const [method, url] of [
      ["GET", `/api/v1/files/${file_id}`],
      ["GET", `/api/v1/files/${file_id}/audio-url`],
      ["DELETE", `/api/v1/files/${file_id}`],
    ] as const) {
      const response = await api(bob, method, url);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: { code: "not_found", message: "File not found" } });
    }

    expect((await api(alice, "DELETE", `/api/v1/files/${file_id}`)).status).toBe(204);
    expect((await api(alice, "GET", `/api/v1/files/${file_id}`)).status).toBe(404);
    expect((await storedFiles(media.storageDir)).filter((f) => f.includes(file_id))).toEqual([]);
  });

  it.each([
    ["an empty file", { file_size: 0 }, "File cannot be empty"],
    ["100 MB + 1 byte", { file_size: 100 * 1024 * 1024 + 1 }, "File too large (max 100MB)"],
    [
      "an unknown type",
      { content_type: "text/plain" },
      "Invalid file type. Allowed types: audio/mpeg, audio/wav, audio/x-wav, audio/mp4, audio/x-m4a, audio/flac, audio/ogg, audio/webm, video/mp4, video/webm",
    ],
    ["no extension", { file_name: "talk" }, "Filename must have an extension"],
  ])("refuses %s with the spec's message", async (_name, change, message) => {
    const response = await api(alice, "POST", "/api/v1/upload", declare(mp3, change));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: { code: "invalid_argument", message } });
  });

  it("a PUT of another size is refused by storage through the BFF, and nothing is stored", async () => {
    const { upload_url, file_id } = (await (await api(alice, "POST", "/api/v1/upload", declare(mp3, { file_size: mp3.size + 1 }))).json()) as {
      upload_url: string;
      file_id: string;
    };
    const put = await fetch(upload_url, { method: "PUT", body: await readFile(mp3.path), headers: { "content-type": mp3.contentType } });
    expect(put.status).toBe(400);
    expect(await put.json()).toEqual({ error: { code: "invalid_argument", message: `The upload must be exactly ${mp3.size + 1} bytes` } });
    const tampered = upload_url.replace(/sig=[^&]+/, "sig=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    const forged = await fetch(tampered, { method: "PUT", body: await readFile(mp3.path), headers: { "content-type": mp3.contentType } });
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { error: { message: string } }).error.message).toBe("This link is invalid or has been altered");
    expect((await storedFiles(media.storageDir)).filter((f) => f.includes(file_id))).toEqual([]);
  });

  it("needs a session for every media route but the signed storage URLs", async () => {
    // (The session check runs after body validation, so the POSTs carry valid bodies.)
    for (const [method, url, body] of [
      ["POST", "/api/v1/upload", declare(mp3)],
      ["GET", "/api/v1/files", undefined],
      ["GET", "/api/v1/files/x", undefined],
      ["DELETE", "/api/v1/files/x", undefined],
      ["GET", "/api/v1/files/x/audio-url", undefined],
      ["POST", "/api/v1/retrieve", { url: "https://example.com/a.mp3" }],
    ] as const) {
      const response = await api(undefined, method, url, body);
      expect(response.status, `${method} ${url}`).toBe(401);
    }
    const unsigned = await fetch(`${origin}/api/v1/storage/media/x/raw.mp3`);
    expect(unsigned.status).toBe(403);
  });

  it("retrieve refuses private addresses at once", async () => {
    const response = await api(alice, "POST", "/api/v1/retrieve", { url: "http://169.254.169.254/latest/meta-data/" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      "This URL points to a private, local or reserved network address and cannot be imported",
    );
  });

  it("the OpenAPI document describes the media routes in snake_case", async () => {
    const doc = (await (await api(undefined, "GET", "/api/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    for (const route of ["/api/v1/upload", "/api/v1/files", "/api/v1/files/{id}", "/api/v1/files/{id}/audio-url", "/api/v1/retrieve"]) {
      expect(doc.paths).toHaveProperty([route]);
    }
    expect(Object.keys(doc.paths).some((p) => p.startsWith("/api/v1/storage"))).toBe(false);
    expect(doc.components.schemas.UploadRequest?.properties).toHaveProperty("file_size");
    expect(doc.components.schemas.File?.properties).toHaveProperty("file_name");
  });
});
