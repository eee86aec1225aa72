import { createDatabase, createLogger, migrateToLatest, outboxMigrations, startServiceServer, type ServiceServer } from "@transcribe/platform";
import { createTestDatabase } from "@transcribe/platform/testing";
import { buildWebhooks } from "@transcribe/webhooks/build";
import { webhooksConfigSchema } from "@transcribe/webhooks/config";
import { migrations as webhooksMigrations } from "@transcribe/webhooks/db/migrations";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pcmWav } from "@transcribe/media/testing/voices";
import { completedTranscription } from "../../transcription/test/completed.js";
import { type DashboardStack, startDashboardStack } from "./dashboard-stack.js";

/**
 * The request-body rule of /api/v1 (docs/api.md "Request bodies", decision 0034), route
 * family by route family, through the real BFF, auth, media, transcription and webhooks
 * services: an unknown field is a 400 that names it and writes nothing; null for an optional
 * field is the same as leaving it out; the OpenAI-compatible /v1 still ignores unknown fields.
 * The worker is stopped: nothing here needs the engine to run.
 */
describe("one rule for /api/v1 request bodies", () => {
  let stack: DashboardStack | undefined;
  let hooks: { server: ServiceServer; stop(): Promise<void> } | undefined;
  let origin: string;
  let alice: string;
  let aliceId: string;

  beforeAll(async () => {
    hooks = await startWebhooks();
    stack = await startDashboardStack("bodies", { WEBHOOKS_URL: hooks.server.url });
    await stack.worker.stop();
    ({ origin, alice } = stack);
    aliceId = ((await (await api("GET", "/api/v1/me")).json()) as { id: string }).id;
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await hooks?.stop();
  });

  const api = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
    fetch(`${origin}${url}`, {
      method,
      headers: { ...headers, cookie: alice, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const json = async <T = Record<string, unknown>>(response: Response) => (await response.json()) as T;

  /** 400 invalid_request whose message starts with the field's path. */
  async function expectUnknown(response: Response, path: string) {
    const body = await json<{ error: { code: string; message: string; detail?: { issues?: Array<{ path: string }> } } }>(response);
    expect(response.status, JSON.stringify(body)).toBe(400);
    expect(body.error.message).toBe(`${path}: unknown field`);
    if (body.error.detail?.issues) expect(body.error.detail.issues[0]!.path).toBe(path);
  }

  async function upload(): Promise<string> {
    const wav = silentWav(1);
    const started = await api("POST", "/api/v1/upload", { file_name: "one-second.wav", file_size: wav.length, content_type: "audio/wav", duration: 1 });
    expect(started.status).toBe(200);
    const { upload_url, file_id } = await json<{ upload_url: string; file_id: string }>(started);
    expect((await fetch(upload_url, { method: "PUT", body: wav, headers: { "content-type": "audio/wav" } })).status).toBe(200);
    return file_id;
  }
  const transcriptionCount = async () => (await json<{ total_count: number }>(await api("GET", "/api/v1/transcriptions?limit=100"))).total_count;

  it("transcriptions: start, rename, retry and diarize refuse an unknown field (top level and in settings) and start nothing; null settings are absent ones", { timeout: 120_000 }, async () => {
    const fileId = await upload();
    await expectUnknown(await api("POST", "/api/v1/transcriptions", { file_id: fileId, settings: { language: "en", vocabularyy: ["Kubernetes"] } }), "settings.vocabularyy");
    await expectUnknown(await api("POST", "/api/v1/transcriptions", { file_id: fileId, callback_url: "https://example.org", settings: { language: "en" } }), "callback_url");
    expect(await transcriptionCount()).toBe(0);

    const started = await api("POST", "/api/v1/transcriptions", {
      file_id: fileId,
      settings: { language: "en", model: null, provider: null, prompt: null, temperature: null, diarize: null, min_speakers: null, vocabulary: null, use_vocabulary: null, translate_to_en: null },
    });
    expect(started.status, await started.clone().text()).toBe(200);
    const { transcription_id: id } = await json<{ transcription_id: string }>(started);
    expect(await transcriptionCount()).toBe(1);
    const detail = await json<{ display_name: string; config: { model: string; language: string } }>(await api("GET", `/api/v1/transcriptions/${id}`));
    // The defaults, as if the fields had not been sent.
    expect(detail.config).toMatchObject({ model: "whisper-base", language: "en" });

    await expectUnknown(await api("PATCH", `/api/v1/transcriptions/${id}/rename`, { new_name: "Renamed", name: "x" }), "name");
    expect((await json<{ display_name: string }>(await api("GET", `/api/v1/transcriptions/${id}`))).display_name).toBe(detail.display_name);
    await expectUnknown(await api("POST", `/api/v1/transcriptions/${id}/retry`, { settings: { language: "en", modell: "whisper-tiny.en" } }), "settings.modell");
    await expectUnknown(await api("POST", `/api/v1/transcriptions/${id}/diarize`, { min_speakers: 2, max_speakerz: 3 }), "max_speakerz");
    // settings: null passes the rule like an absent one; the job still queued is what refuses the retry.
    const retried = await api("POST", `/api/v1/transcriptions/${id}/retry`, { settings: null });
    expect(retried.status, await retried.clone().text()).toBe(409);
    // Retry and diarize take an optional body: none at all is the empty one, not a 400 about null.
    for (const action of ["retry", "diarize"]) {
      const bare = await api("POST", `/api/v1/transcriptions/${id}/${action}`);
      expect(bare.status, `${action}: ${await bare.clone().text()}`).toBe(409);
    }
    expect(await transcriptionCount()).toBe(1);
  });

  it("jobs: an unknown form field is refused with its name before the file or URL is touched", async () => {
    const form = new FormData();
    form.set("url", "https://example.org/meeting.wav");
    form.set("languag", "en");
    await expectUnknown(await fetch(`${origin}/api/v1/jobs`, { method: "POST", headers: { cookie: alice }, body: form }), "languag");
    const files = await json<{ files: Array<{ file_name: string }> }>(await api("GET", "/api/v1/files?limit=100"));
    expect(files.files.map((f) => f.file_name)).not.toContain("meeting.wav");
  });

  it("editor: an unknown segment field is refused naming segments.N.field and saves nothing; speaker: null keeps the speaker like leaving it out", async () => {
    const id = await completedTranscription(stack!.database.db, aliceId);
    type Result = { revision: number; segments: Array<{ id: number; text: string; speaker?: string }> };
    const read = async () => (await json<{ result: Result }>(await api("GET", `/api/v1/transcriptions/${id}`))).result;
    const before = await read();
    const segments = before.segments.map((s) => ({ id: s.id, text: s.text }));
    await expectUnknown(await api("PUT", `/api/v1/transcriptions/${id}/result`, { base_revision: 1, segments: [{ ...segments[0]!, speakerr: "S1" }, ...segments.slice(1)] }), "segments.0.speakerr");
    expect((await read()).revision).toBe(1);

    const named = await api("PUT", `/api/v1/transcriptions/${id}/result`, { base_revision: 1, segments: [{ ...segments[0]!, speaker: "S1" }, ...segments.slice(1)] });
    expect(named.status, await named.clone().text()).toBe(200);
    const edited = segments.map((s, index) => ({ ...s, text: index === 0 ? `${s.text} again` : s.text, speaker: null }));
    const saved = await api("PUT", `/api/v1/transcriptions/${id}/result`, { base_revision: 2, segments: edited });
    expect(saved.status, await saved.clone().text()).toBe(200);
    const after = await read();
    expect(after.revision).toBe(3);
    expect(after.segments[0]).toMatchObject({ text: `${segments[0]!.text} again`, speaker: "S1" });
  });

  it("vocabulary: an unknown term field is refused naming terms.N.field and the saved list stays; null sounds_like and language are absent", async () => {
    await expectUnknown(await api("PUT", "/api/v1/vocabulary", { terms: [{ term: "Kubernetes" }, { term: "EyeLink", soundslike: ["eye link"] }] }), "terms.1.soundslike");
    expect((await json<{ terms: unknown[] }>(await api("GET", "/api/v1/vocabulary"))).terms).toEqual([]);
    const saved = await api("PUT", "/api/v1/vocabulary", { terms: [{ term: "Kubernetes", sounds_like: null, language: null }] });
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect((await json<{ terms: unknown[] }>(await api("GET", "/api/v1/vocabulary"))).terms).toEqual([{ term: "Kubernetes" }]);
  });

  it("settings: the voice library switch refuses an unknown field and stays off", async () => {
    await expectUnknown(await api("PUT", "/api/v1/voices/settings", { enabled: true, retention_days: 30 }), "retention_days");
    expect(await json(await api("GET", "/api/v1/voices/settings"))).toEqual({ enabled: false });
  });

  it("API keys: an unknown field is refused and no key is made; expires_at: null is a key that never expires", async () => {
    await expectUnknown(await api("POST", "/api/v1/api-keys", { name: "ci", scopes: ["transcriptions:read"] }), "scopes");
    expect((await json<{ api_keys: unknown[] }>(await api("GET", "/api/v1/api-keys"))).api_keys).toEqual([]);
    const created = await api("POST", "/api/v1/api-keys", { name: "ci", expires_at: null });
    expect(created.status, await created.clone().text()).toBe(201);
    expect((await json<{ api_keys: Array<{ name: string; expires_at: string | null }> }>(await api("GET", "/api/v1/api-keys"))).api_keys).toEqual([expect.objectContaining({ name: "ci", expires_at: null })]);
  });

  it("webhooks: an unknown field is refused and no endpoint is made", async () => {
    await expectUnknown(await api("POST", "/api/v1/webhooks", { url: "https://example.org/hook", events: ["transcription.completed"], secret: "mine" }), "secret");
    expect((await json<{ webhooks: unknown[] }>(await api("GET", "/api/v1/webhooks"))).webhooks).toEqual([]);
  });

  it("uploads, exports and support follow the same rule", async () => {
    await expectUnknown(await api("POST", "/api/v1/upload", { file_name: "a.wav", file_size: 10, content_type: "audio/wav", duration: 1, checksum: "x" }), "checksum");
    await expectUnknown(await api("POST", "/api/v1/transcriptions/00000000-0000-0000-0000-000000000000/export", { format: "txt", include_timestamps: null, font: "serif" }), "font");
    await expectUnknown(await api("POST", "/api/v1/support", { subject: "Help", message: "Please", priority: "high" }), "priority");
  });

  it("the OpenAI-compatible /v1 stays lenient: an unknown form field is ignored, as OpenAI's API does", async () => {
    const form = new FormData();
    form.set("file", new Blob([silentWav(1)], { type: "audio/wav" }), "one-second.wav");
    form.set("model", "no-such-model");
    form.set("stream", "false");
    form.set("chunking_strategy", "auto");
    const answer = await fetch(`${origin}/v1/audio/transcriptions`, { method: "POST", headers: { cookie: alice }, body: form });
    const body = await json<{ error: { param?: string; message: string } }>(answer);
    // Refused for the model it names (checked after the fields), never for the fields it does not know.
    expect(body.error.param, JSON.stringify(body)).toBe("model");
    expect(body.error.message).not.toMatch(/stream|chunking_strategy/);
  });
});

/** The webhooks service on a database of its own (no event bus: nothing is delivered here). */
async function startWebhooks() {
  const logger = createLogger("bff-bodies-webhooks", "silent");
  const db = await createTestDatabase("bodies_webhooks");
  const database = createDatabase(db.url, { max: 2 });
  await migrateToLatest(database.db, { ...outboxMigrations, ...webhooksMigrations });
  const built = buildWebhooks({ config: webhooksConfigSchema.parse({}), logger, database });
  const server = await startServiceServer({ name: "webhooks", host: "127.0.0.1", port: 0, logger, routes: built.parts.routes! });
  return {
    server,
    async stop() {
      await server.close();
      await database.close();
      await db.drop();
    },
  };
}

/** A mono 16 kHz 16-bit WAV of silence. */
const silentWav = (seconds: number): Buffer => pcmWav(Buffer.alloc(16_000 * 2 * seconds));
