import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { createReadStream, existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { concatWavs, engineUnavailable, synthesize, wordErrorRate } from "../../../transcription/test/helpers.js";
import { type DeveloperStack, startDeveloperStack } from "./stack.js";

const SCRIPT = "The committee met on Tuesday morning to review the budget for the new library.";
const GERMAN = "Guten Morgen. Das Wetter ist heute sehr schön, und wir gehen in den Park.";
const RATE_LIMIT = 60;
const execFileAsync = promisify(execFile);

/** OpenAI's official Python client in a virtual environment of this test's own (pip install openai). */
function pythonOpenAi(): string | undefined {
  const venv = path.resolve(import.meta.dirname, "../../../../.data/openai-python");
  const python = path.join(venv, "bin", "python");
  try {
    if (!existsSync(python)) execFileSync("python3", ["-m", "venv", venv], { stdio: "ignore" });
    execFileSync(python, ["-c", "import openai"], { stdio: "ignore" });
    return python;
  } catch {
    try {
      execFileSync(python, ["-m", "pip", "install", "--quiet", "openai"], { stdio: "ignore", timeout: 240_000 });
      return python;
    } catch {
      if (process.env.CI) throw new Error("pip install openai failed");
      return undefined;
    }
  }
}

describe.skipIf(engineUnavailable)("developer API: API keys and the OpenAI-compatible endpoints", () => {
  let stack: DeveloperStack;
  let alice: string;
  let bob: string;
  let key: string;
  let keyId: string;
  let english: string;
  let german: string;

  const api = (headers: Record<string, string>, method: string, url: string, body?: unknown) =>
    fetch(`${stack.origin}${url}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json", origin: stack.origin }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const session = (cookie: string) => ({ cookie, origin: stack.origin });
  const bearer = (k: string) => ({ authorization: `Bearer ${k}` });

  beforeAll(async () => {
    stack = await startDeveloperStack({ authEnv: { AUTH_API_KEY_RATE_LIMIT_MAX: String(RATE_LIMIT), AUTH_API_KEY_RATE_LIMIT_WINDOW_SECONDS: "600" } });
    [alice, bob] = await Promise.all([stack.signIn("alice-dev@example.com"), stack.signIn("bob-dev@example.com")]);
    english = (await synthesize(SCRIPT)).path;
    german = (await synthesize(GERMAN, { voice: "de" })).path;
  }, 240_000);

  afterAll(async () => {
    await stack?.close();
  });

  it("creates a key over the session API: the secret once, then only its prefix", async () => {
    const created = await api(session(alice), "POST", "/api/v1/api-keys", { name: "scripts" });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { id: string; name: string; prefix: string; key: string; created_at: string; expires_at: string | null };
    expect(body).toMatchObject({ name: "scripts", expires_at: null });
    expect(body.key).toMatch(/^tsk_[A-Za-z]{40,}$/);
    expect(body.key.startsWith(body.prefix)).toBe(true);
    key = body.key;
    keyId = body.id;

    const list = (await (await api(session(alice), "GET", "/api/v1/api-keys")).json()) as { api_keys: Array<Record<string, unknown>> };
    expect(list.api_keys).toEqual([{ id: keyId, name: "scripts", prefix: body.prefix, created_at: body.created_at, last_used_at: null, expires_at: null }]);
    expect(JSON.stringify(list)).not.toContain(key);
    // Only the hash is stored.
    const rows = await stack.auth.database.db.selectFrom("api_keys" as never).selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(key);

    const bad = await api(session(alice), "POST", "/api/v1/api-keys", { name: "old", expires_at: "2001-01-01T00:00:00Z" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain("future");
  });

  it("the official openai npm client transcribes (json, verbose_json with words, srt, text) and translates German", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: `${stack.origin}/v1`, maxRetries: 0, timeout: 300_000 });
    const models = await client.models.list();
    const ids = models.data.map((m) => m.id);
    expect(ids).toContain("whisper-1");
    expect(ids).toContain("whisper-tiny.en");

    const json = await client.audio.transcriptions.create({ file: createReadStream(english), model: "whisper-tiny.en", language: "en" });
    expect(wordErrorRate(SCRIPT, json.text)).toBeLessThan(0.35);

    const verbose = await client.audio.transcriptions.create({
      file: createReadStream(english),
      model: "whisper-tiny.en",
      language: "en",
      response_format: "verbose_json",
      timestamp_granularities: ["word", "segment"],
    });
    expect(verbose.language).toBe("english");
    expect(verbose.duration).toBeGreaterThan(3);
    expect(verbose.segments!.length).toBeGreaterThan(0);
    expect(verbose.words!.length).toBeGreaterThan(8);
    expect(verbose.words!.map((w) => w.word.toLowerCase()).join(" ")).toContain("budget");
    for (const w of verbose.words!) expect(w.end).toBeGreaterThanOrEqual(w.start);

    const srt = (await client.audio.transcriptions.create({ file: createReadStream(english), model: "whisper-tiny.en", language: "en", response_format: "srt" })) as unknown as string;
    expect(srt).toMatch(/^1\r?\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}/);
    expect(srt.toLowerCase()).toContain("library");

    const text = (await client.audio.transcriptions.create({ file: createReadStream(english), model: "whisper-1", response_format: "text" })) as unknown as string;
    expect(wordErrorRate(SCRIPT, text)).toBeLessThan(0.35);

    const translated = await client.audio.translations.create({ file: createReadStream(german), model: "whisper-1" });
    const words = translated.text.toLowerCase();
    // English, from German speech ("Guten Morgen ... in den Park").
    expect(words).toMatch(/good morning/);
    expect(words).toMatch(/park/);
    expect(words).not.toMatch(/guten|wetter|heute/);
  }, 600_000);

  it("the official openai Python client (its own venv) transcribes with the same key", async (context) => {
    const python = pythonOpenAi();
    if (!python) return context.skip("python3 -m venv / pip install openai is not possible here");
    const script = [
      "import json, os, sys",
      "from openai import OpenAI",
      "c = OpenAI(base_url=os.environ['BASE_URL'], api_key=os.environ['KEY'], max_retries=0, timeout=float(os.environ.get('CLIENT_TIMEOUT', '300')))",
      "f = sys.argv[1]",
      "out = {}",
      "out['json'] = c.audio.transcriptions.create(file=open(f, 'rb'), model='whisper-tiny.en', language='en').text",
      "v = c.audio.transcriptions.create(file=open(f, 'rb'), model='whisper-tiny.en', language='en', response_format='verbose_json', timestamp_granularities=['word'])",
      "out['words'] = [w.word for w in v.words]",
      "out['srt'] = c.audio.transcriptions.create(file=open(f, 'rb'), model='whisper-tiny.en', language='en', response_format='srt')",
      "out['text'] = c.audio.transcriptions.create(file=open(f, 'rb'), model='whisper-tiny.en', language='en', response_format='text')",
      "out['translation'] = c.audio.translations.create(file=open(sys.argv[2], 'rb'), model='whisper-1').text",
      "print(json.dumps(out))",
    ].join("\n");
    // Asynchronously: the servers answering it run in this process.
    const { stdout: output } = await execFileAsync(python, ["-c", script, english, german], {
      env: { ...process.env, BASE_URL: `${stack.origin}/v1`, KEY: key, CLIENT_TIMEOUT: process.env.CLIENT_TIMEOUT ?? "300" },
      encoding: "utf8",
      timeout: 500_000,
    });
    const out = JSON.parse(output) as { json: string; words: string[]; srt: string; text: string; translation: string };
    expect(wordErrorRate(SCRIPT, out.json)).toBeLessThan(0.35);
    expect(out.words.join(" ").toLowerCase()).toContain("committee");
    expect(out.srt).toContain(" --> ");
    expect(wordErrorRate(SCRIPT, out.text)).toBeLessThan(0.35);
    expect(out.translation.toLowerCase()).toContain("park");
  }, 600_000);

  it("answers OpenAI's error shape: unknown model, a file that is not media, no file, no key", async () => {
    const form = new FormData();
    form.set("file", new Blob([Buffer.from("not audio at all")], { type: "audio/wav" }), "x.wav");
    form.set("model", "gpt-4o-nonexistent");
    const refused = await fetch(`${stack.origin}/v1/audio/transcriptions`, { method: "POST", headers: bearer(key), body: form });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { type: "invalid_request_error", param: "model" } });

    const hostile = new FormData();
    hostile.set("file", new Blob([Buffer.from("RIFF....WAVEfmt garbage that is not a real wave file".repeat(50))], { type: "audio/wav" }), "bad.wav");
    hostile.set("model", "whisper-tiny.en");
    const notMedia = await fetch(`${stack.origin}/v1/audio/transcriptions`, { method: "POST", headers: bearer(key), body: hostile });
    expect(notMedia.status).toBe(400);
    expect(await notMedia.json()).toMatchObject({ error: { param: "file", type: "invalid_request_error" } });

    const noFile = new FormData();
    noFile.set("model", "whisper-1");
    const missing = await fetch(`${stack.origin}/v1/audio/transcriptions`, { method: "POST", headers: bearer(key), body: noFile });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { param: "file" } });

    const anonymous = await fetch(`${stack.origin}/v1/models`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { type: "authentication_error" } });
  });

  it("a key reaches only the API: account and key management answer 403, another user's transcription 404", async () => {
    for (const [method, url] of [
      ["GET", "/api/v1/me"],
      ["GET", "/api/v1/api-keys"],
      ["POST", "/api/v1/api-keys"],
      ["DELETE", `/api/v1/api-keys/${keyId}`],
      ["GET", "/api/v1/billing/subscription"],
    ] as const) {
      const response = await api(bearer(key), method, url, method === "POST" ? { name: "escalate" } : undefined);
      expect(response.status, `${method} ${url}`).toBe(403);
    }
    // Bob's transcription through Alice's key.
    const bobKey = ((await (await api(session(bob), "POST", "/api/v1/api-keys", { name: "bob" })).json()) as { key: string }).key;
    const jobForm = new FormData();
    jobForm.set("file", new Blob([await readFile(english)], { type: "audio/wav" }), "bob.wav");
    jobForm.set("model", "whisper-tiny.en");
    jobForm.set("language", "en");
    const job = await fetch(`${stack.origin}/api/v1/jobs`, { method: "POST", headers: bearer(bobKey), body: jobForm });
    expect(job.status).toBe(202);
    const { transcription_id } = (await job.json()) as { transcription_id: string };
    expect((await api(bearer(bobKey), "GET", `/api/v1/transcriptions/${transcription_id}`)).status).toBe(200);
    expect((await api(bearer(key), "GET", `/api/v1/transcriptions/${transcription_id}`)).status).toBe(404);
    expect((await api(bearer(key), "DELETE", `/api/v1/transcriptions/${transcription_id}`)).status).toBe(404);
  });

  it("the sync endpoint answers use_async_api past its wait limit; the job goes on and completes", async () => {
    const dir = path.join(path.dirname(english), "long");
    await mkdir(dir, { recursive: true });
    const parts = await Promise.all(Array.from({ length: 4 }, () => synthesize(SCRIPT, { dir })));
    const long = concatWavs(Array.from({ length: 4 }, (_, i) => parts[i % parts.length]!.path), path.join(dir, "long.wav"));
    const impatient = await stack.extraBff({ OPENAI_SYNC_WAIT_SECONDS: "3" });
    const client = new OpenAI({ apiKey: key, baseURL: `${impatient}/v1`, maxRetries: 0 });
    const started = Date.now();
    const error = await client.audio.transcriptions.create({ file: createReadStream(long.path), model: "whisper-tiny.en", language: "en" }).then(
      () => undefined,
      (e: unknown) => e as InstanceType<typeof OpenAI.BadRequestError>,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error!.code, error!.message).toBe("use_async_api");
    expect(error!.message).toContain("/api/v1/jobs");
    const id = (error!.error as { transcription_id?: string }).transcription_id;
    if (id) {
      const deadline = Date.now() + 300_000;
      let status = "";
      while (Date.now() < deadline && status !== "completed" && status !== "failed") {
        // Polled with the session: the key's rate limit is for the calls under test.
        status = ((await (await api(session(alice), "GET", `/api/v1/transcriptions/${id}`)).json()) as { status: string }).status;
        await new Promise((r) => setTimeout(r, 1000));
      }
      expect(status).toBe("completed");
    }
  }, 400_000);

  it("rate-limits each key with 429 and Retry-After", async () => {
    const limited = ((await (await api(session(alice), "POST", "/api/v1/api-keys", { name: "burst" })).json()) as { key: string }).key;
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < RATE_LIMIT + 2; i++) {
      const response = await api(bearer(limited), "GET", "/v1/models");
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get("retry-after");
      await response.body?.cancel();
    }
    expect(statuses.slice(0, RATE_LIMIT).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // Another key of the same user is not affected.
    expect((await api(bearer(key), "GET", "/v1/models")).status).toBe(200);
  });

  it("records the last use, and a revoked or expired key gets 401 on its next call", async () => {
    const list = (await (await api(session(alice), "GET", "/api/v1/api-keys")).json()) as { api_keys: Array<{ id: string; last_used_at: string | null }> };
    expect(list.api_keys.find((k) => k.id === keyId)!.last_used_at).not.toBeNull();

    expect((await api(bearer(key), "GET", "/v1/models")).status).toBe(200);
    expect((await api(session(bob), "DELETE", `/api/v1/api-keys/${keyId}`)).status).toBe(404);
    expect((await api(session(alice), "DELETE", `/api/v1/api-keys/${keyId}`)).status).toBe(204);
    const revoked = await api(bearer(key), "GET", "/v1/models");
    expect(revoked.status).toBe(401);
    expect(await revoked.json()).toMatchObject({ error: { code: "invalid_api_key" } });
    expect((await api(bearer(key), "GET", "/api/v1/transcriptions")).status).toBe(401);

    const soon = new Date(Date.now() + 2_000).toISOString();
    const expiring = ((await (await api(session(alice), "POST", "/api/v1/api-keys", { name: "short", expires_at: soon })).json()) as { key: string }).key;
    expect((await api(bearer(expiring), "GET", "/v1/models")).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2_500));
    expect((await api(bearer(expiring), "GET", "/v1/models")).status).toBe(401);
  });
});
