import { freePort } from "@transcribe/platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineUnavailable } from "../../transcription/test/helpers.js";
import { fakeModel, startHub } from "../../transcription/test/hub-server.js";
import { startStack, type Stack } from "./stack.js";

interface ModelJson {
  id: string;
  available: boolean;
  preparing?: boolean;
  reason?: string;
  present?: boolean;
  download_bytes?: number;
  ram_bytes?: number;
  download?: { done_bytes: number; total_bytes?: number };
}

/**
 * An administrator's speech models through the BFF: the real auth service (who is an
 * administrator: ADMIN_EMAILS), the transcription API downloading from a local server
 * speaking the model hub's API (HF_ENDPOINT), and the refusals a hostile caller meets.
 */
describe.skipIf(engineUnavailable)("speech models for administrators (BFF)", () => {
  let stack: Stack;
  let hub: Awaited<ReturnType<typeof startHub>>;
  let origin: string;
  let admin: string;
  let user: string;
  const previousEndpoint = process.env.HF_ENDPOINT;

  beforeAll(async () => {
    hub = await startHub(fakeModel(2_000_000), { repo: "Systran/faster-whisper-small.en" });
    process.env.HF_ENDPOINT = hub.url;
    // Model administration never calls media, and no job runs.
    stack = await startStack({ name: "models", media: false, worker: false, allowDownload: true });
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    await stack.startBff({ PUBLIC_BASE_URL: origin, ADMIN_EMAILS: " Admin-Models@example.com ,someone-else@example.com" }, port);
    admin = await stack.signIn("admin-models@example.com");
    user = await stack.signIn("user-models@example.com");
  }, 180_000);

  afterAll(async () => {
    if (previousEndpoint === undefined) delete process.env.HF_ENDPOINT;
    else process.env.HF_ENDPOINT = previousEndpoint;
    await stack?.stop();
    await hub?.close();
  });

  const api = (cookie: string | undefined, method: string, url: string) =>
    fetch(`${origin}${url}`, { method, headers: { origin, ...(cookie ? { cookie } : {}) } });
  const model = async (id: string) => ((await (await api(user, "GET", "/api/v1/models")).json()) as { models: ModelJson[] }).models.find((m) => m.id === id)!;

  it("says who is an administrator, and lists each local model's size, memory and presence", async () => {
    expect(await (await api(admin, "GET", "/api/v1/me")).json()).toMatchObject({ email: "admin-models@example.com", is_admin: true });
    expect(await (await api(user, "GET", "/api/v1/me")).json()).toMatchObject({ is_admin: false });
    expect(await model("whisper-small.en")).toEqual({
      id: "whisper-small.en",
      provider: "local",
      name: "Whisper small.en (on this server, English only, slower, more accurate)",
      languages: ["auto", "en"],
      translation: false,
      available: false,
      preparing: true,
      present: false,
      download_bytes: 484_000_000,
      ram_bytes: 1_500_000_000,
      reason: "Not downloaded yet (484 MB); it downloads when first used or an administrator can download it now",
    });
    expect(await model("whisper-tiny.en")).toMatchObject({ available: true, present: true });
  });

  it("refuses non-administrators (403), strangers (401), unknown ids (404) and cloud or default models (409)", async () => {
    const cases: Array<[string | undefined, string, string, number, string]> = [
      [undefined, "POST", "/api/v1/models/whisper-small.en/download", 401, "unauthenticated"],
      [user, "POST", "/api/v1/models/whisper-small.en/download", 403, "permission_denied"],
      [user, "DELETE", "/api/v1/models/whisper-tiny.en", 403, "permission_denied"],
      [admin, "POST", "/api/v1/models/whisper-9000/download", 404, "not_found"],
      [admin, "DELETE", "/api/v1/models/whisper-9000", 404, "not_found"],
      [admin, "DELETE", "/api/v1/models/whisper-base", 409, "failed_precondition"],
      [admin, "POST", "/api/v1/models/whisper-large-v3-turbo/download", 409, "failed_precondition"],
    ];
    for (const [cookie, method, url, status, code] of cases) {
      const answer = await api(cookie, method, url);
      expect([method, url, answer.status]).toEqual([method, url, status]);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(code);
    }
    expect(await model("whisper-small.en")).toMatchObject({ present: false });
  });

  it("downloads a model for an administrator (202, progress in the list), then removes it", { timeout: 120_000 }, async () => {
    const started = await api(admin, "POST", "/api/v1/models/whisper-small.en/download");
    expect(started.status).toBe(202);
    const body = (await started.json()) as { model: ModelJson };
    expect(body.model).toMatchObject({ id: "whisper-small.en", present: false, preparing: true });
    expect(body.model.download?.done_bytes).toBeGreaterThanOrEqual(0);
    const deadline = Date.now() + 60_000;
    while (!(await model("whisper-small.en")).present && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await model("whisper-small.en")).toMatchObject({ present: true, available: true });
    // Present already: a second request answers at once, nothing is fetched again.
    expect((await api(admin, "POST", "/api/v1/models/whisper-small.en/download")).status).toBe(202);
    expect(hub.requests.filter((r) => r.startsWith("GET ") && r.endsWith("/model.bin"))).toHaveLength(1);

    const removed = await api(admin, "DELETE", "/api/v1/models/whisper-small.en");
    expect(removed.status).toBe(200);
    expect(await removed.json()).toMatchObject({ removed: true, model: { present: false } });
    expect(await model("whisper-small.en")).toMatchObject({ present: false, available: false });
  });
});
