import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pcmWav } from "@transcribe/media/testing/voices";
import { type DeveloperStack, startDeveloperStack } from "./stack.js";

/**
 * What the developer API's upload routes (/v1/audio/transcriptions, /v1/audio/translations,
 * /api/v1/jobs) answer to a request they refuse, through the real auth, media and
 * transcription services: the client's mistake is the client's 400 in the route's own
 * error shape (OpenAI's under /v1, the product's under /api/v1), and the request leaves no
 * file behind in the user's file list.
 */
describe("developer API: refused requests store nothing", () => {
  let stack: DeveloperStack;
  let key: string;

  beforeAll(async () => {
    stack = await startDeveloperStack();
    const alice = await stack.signIn("alice-refused@example.com");
    const created = await fetch(`${stack.origin}/api/v1/api-keys`, {
      method: "POST",
      headers: { cookie: alice, origin: stack.origin, "content-type": "application/json" },
      body: JSON.stringify({ name: "refused" }),
    });
    expect(created.status).toBe(201);
    key = ((await created.json()) as { key: string }).key;
  }, 240_000);

  afterAll(async () => {
    await stack?.close();
  });

  const bearer = () => ({ authorization: `Bearer ${key}` });
  const post = (url: string, body: FormData | string, headers: Record<string, string> = {}) =>
    fetch(`${stack.origin}${url}`, { method: "POST", headers: { ...bearer(), ...headers }, body });
  const fileCount = async () => {
    const response = await fetch(`${stack.origin}/api/v1/files?limit=100`, { headers: bearer() });
    expect(response.status).toBe(200);
    return ((await response.json()) as { total_count: number }).total_count;
  };
  const wavForm = (fields: Record<string, string>, bytes: Buffer = silentWav(1)) => {
    const form = new FormData();
    form.set("file", new Blob([bytes], { type: "audio/wav" }), "short.wav");
    for (const [name, value] of Object.entries(fields)) form.set(name, value);
    return form;
  };

  // A file part the body ends inside (no closing boundary), and a content-type without a boundary.
  const cutOff = '--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nabc';
  const malformed = [
    { name: "a body that ends inside the file part", contentType: "multipart/form-data; boundary=XYZ", body: cutOff },
    { name: "a content-type without a boundary", contentType: "multipart/form-data", body: cutOff },
  ];

  it("a malformed multipart body is a 400 in OpenAI's shape on /v1/audio/*, not a 500", async () => {
    const before = await fileCount();
    for (const url of ["/v1/audio/transcriptions", "/v1/audio/translations"]) {
      for (const { name, contentType, body } of malformed) {
        const response = await post(url, body, { "content-type": contentType });
        const answer = (await response.json()) as { error: { message: string; type: string; param: string | null; code: string | null } };
        expect(response.status, `${url}, ${name}: ${JSON.stringify(answer)}`).toBe(400);
        expect(answer, `${url}, ${name}`).toEqual({
          error: { message: expect.stringMatching(/^Malformed multipart form: /), type: "invalid_request_error", param: "file", code: "invalid_argument" },
        });
      }
    }
    expect(await fileCount()).toBe(before);
  });

  it("a malformed multipart body is a 400 in the product's error shape on /api/v1/jobs, not a 500", async () => {
    const before = await fileCount();
    for (const { name, contentType, body } of malformed) {
      const response = await post("/api/v1/jobs", body, { "content-type": contentType });
      const answer = (await response.json()) as { error: { code: string; message: string; detail?: unknown } };
      expect(response.status, `${name}: ${JSON.stringify(answer)}`).toBe(400);
      expect(answer, name).toEqual({ error: { code: "invalid_argument", message: expect.stringMatching(/^Malformed multipart form: /), detail: { param: "file" } } });
    }
    expect(await fileCount()).toBe(before);
  });

  it("settings the transcription service refuses leave no file behind (/api/v1/jobs and /v1/audio/transcriptions)", { timeout: 120_000 }, async () => {
    const before = await fileCount();

    const job = await post("/api/v1/jobs", wavForm({ model: "whisper-tiny.en", language: "zz" }));
    const jobAnswer = (await job.json()) as { error: { code: string; message: string } };
    expect(job.status, JSON.stringify(jobAnswer)).toBe(400);
    expect(jobAnswer.error).toMatchObject({ code: "invalid_argument", message: "Unknown language: zz" });
    expect(await fileCount()).toBe(before);

    const openAi = await post("/v1/audio/transcriptions", wavForm({ model: "whisper-tiny.en", language: "zz" }));
    const openAiAnswer = (await openAi.json()) as { error: { message: string; type: string } };
    expect(openAi.status, JSON.stringify(openAiAnswer)).toBe(400);
    expect(openAiAnswer.error).toMatchObject({ message: "Unknown language: zz", type: "invalid_request_error", param: "language" });
    expect(await fileCount()).toBe(before);
  });

  it("a file media refuses (not media) leaves no file behind", { timeout: 120_000 }, async () => {
    const before = await fileCount();
    const notMedia = Buffer.from("RIFF....WAVEfmt garbage that is not a real wave file".repeat(50));

    const openAi = await post("/v1/audio/transcriptions", wavForm({ model: "whisper-tiny.en" }, notMedia));
    expect(openAi.status).toBe(400);
    expect(await openAi.json()).toMatchObject({ error: { type: "invalid_request_error", param: "file" } });
    expect(await fileCount()).toBe(before);

    const job = await post("/api/v1/jobs", wavForm({ model: "whisper-tiny.en", language: "en" }, notMedia));
    expect(job.status).toBe(400);
    expect(await fileCount()).toBe(before);
  });

  it("an accepted job still keeps its file", { timeout: 120_000 }, async () => {
    const before = await fileCount();
    const job = await post("/api/v1/jobs", wavForm({ model: "whisper-tiny.en", language: "en" }));
    expect(job.status, await job.clone().text()).toBe(202);
    expect(await fileCount()).toBe(before + 1);
  });
});

/** A mono 16 kHz WAV of silence: media accepts it, so the request reaches the transcription service. */
const silentWav = (seconds: number): Buffer => pcmWav(Buffer.alloc(16_000 * 2 * seconds));
