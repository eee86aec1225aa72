import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engineUnavailable, synthesize } from "../../../transcription/test/helpers.js";
import { documentedAuthEndpoints } from "../../src/http/auth-endpoints.js";
import type { RouteEntry } from "../../src/http/route-table.js";
import { apiCases } from "./api-cases.js";
import { authCases } from "./auth-cases.js";
import { caller, expectApiError, type MatrixContext, sender, viewOf } from "./matrix.js";
import { type Product, signInAgain, signInByMagicLink, signUp, startProduct, toneWav, upload } from "./product.js";
import { authEndpoints, bffRoutes } from "./route-tables.js";

/**
 * docs/security.md's authorization matrix. The routes come from the BFF's own route table and
 * from better-auth's endpoint list, so a new route without a case here fails. User B owns
 * real data in the real product (an upload, a transcription by the real engine, an export,
 * two sessions, a password account); user A goes after each of B's ids through every
 * route; B's whole view is read before and after and must not change.
 */
describe("authorization matrix: every /api and /auth route, user A with user B's ids", () => {
  let product: Product;
  let ctx: MatrixContext;
  let routes: RouteEntry[];
  let endpoints: Array<{ path: string; methods: string[] }>;

  beforeAll(async () => {
    [routes, endpoints, product] = await Promise.all([bffRoutes(), authEndpoints(), startProduct()]);
    const call = caller(product);
    const b = await signUp(product, "victim-b");
    const a = await signInByMagicLink(product, "attacker-a");
    const c = await signUp(product, "throwaway-c");
    const bSecond = await signInAgain(product, b);

    // B's data: real speech when the engine is here (CI), else a tone (the run then ends failed).
    const speech = engineUnavailable ? undefined : await synthesize("Quarterly numbers for the board.");
    const clip = speech ? { bytes: await readFile(speech.path), duration: speech.duration } : { bytes: toneWav(2), duration: 2 };
    const bFile = await upload(b, clip.bytes, clip.duration);
    const started = await call(b, "POST", "/api/v1/transcriptions", { file_id: bFile, settings: { model: "whisper-tiny.en", language: "en" } });
    expect(started.status, started.text).toBe(200);
    const bTranscription = started.body.transcription_id as string;
    const deadline = Date.now() + 400_000;
    let status = "pending";
    while (!["completed", "failed"].includes(status) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      status = (await call(b, "GET", `/api/v1/transcriptions/${bTranscription}`)).body.status;
    }
    if (!engineUnavailable) expect(status, "B's transcription with the real engine").toBe("completed");
    const bCompleted = status === "completed";
    if (bCompleted) {
      // Billing records the usage from the completion event, asynchronously: wait for it, so
      // B's view cannot change between the before and after reads for that reason.
      const until = Date.now() + 60_000;
      while ((await call(b, "GET", "/api/v1/usage-stats")).body.all_time?.file_count !== 1 && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    }
    const exported = bCompleted ? await call(b, "POST", `/api/v1/transcriptions/${bTranscription}/export`, { format: "txt" }) : undefined;
    if (exported) expect(exported.status, exported.text).toBe(200);

    const bKey = await call(b, "POST", "/api/v1/api-keys", { name: "b's scripts" });
    expect(bKey.status, bKey.text).toBe(201);
    // A public IP literal (no DNS); failed-only, and B's jobs do not fail here, so nothing is ever sent to it.
    const bHook = await call(b, "POST", "/api/v1/webhooks", { url: "https://93.184.216.34/hooks", events: ["transcription.failed"] });
    expect(bHook.status, bHook.text).toBe(201);
    const aFile = await upload(a, toneWav(1), 1, "mine.wav");
    const audioOf = async (user: typeof a, id: string) => {
      const answer = await call(user, "GET", `/api/v1/files/${id}/audio-url`);
      expect(answer.status, answer.text).toBe(200);
      return answer.body.url as string;
    };
    const sessionsOfB = (await bSecond.get("/auth/get-session")).body.session.token as string;
    const accountsOfB = (await b.browser.get("/auth/list-accounts")).body as Array<{ id: string; providerId: string }>;
    ctx = {
      product,
      a,
      b,
      c,
      bSecond,
      ids: {
        bFile,
        bTranscription,
        bCompleted,
        bExportUrl: exported?.body.download_url,
        bAudioUrl: await audioOf(b, bFile),
        bAccountId: accountsOfB.find((account) => account.providerId === "credential")!.id,
        bSessionToken: sessionsOfB,
        aFile,
        aAudioUrl: await audioOf(a, aFile),
        bApiKey: bKey.body.id as string,
        bWebhook: bHook.body.id as string,
      },
      call,
      send: sender(product),
      signInAgain: (user) => signInAgain(product, user),
    };
  }, 600_000);

  afterAll(async () => {
    await product?.stop();
  });

  // better-auth's documented endpoints are routes of the /auth proxy too (http/auth-endpoints.ts): auth-cases.ts covers them.
  const proxied = new Set(documentedAuthEndpoints.map((endpoint) => `${endpoint.method} /auth${endpoint.path}`));
  const keyOf = (route: RouteEntry) =>
    apiCases[`${route.method} ${route.url}`] ? `${route.method} ${route.url}` : proxied.has(`${route.method} ${route.url}`) ? "* /auth/*" : `* ${route.url}`;

  it("has a case for every /api and /auth route of the BFF, and none for a route that is gone", () => {
    const missing = routes.filter((route) => !apiCases[keyOf(route)]).map((route) => `${route.method} ${route.url}`);
    expect(missing, "routes without an authorization case (add them to api-cases.ts)").toEqual([]);
    const keys = new Set(routes.map(keyOf));
    expect(Object.keys(apiCases).filter((key) => !keys.has(key)), "cases for routes the BFF no longer has").toEqual([]);
  });

  it("has a case for every better-auth endpoint behind /auth/*, and none for an endpoint that is gone", () => {
    const paths = endpoints.map((endpoint) => endpoint.path);
    expect(paths.filter((path) => !authCases[path]), "endpoints without a case (add them to auth-cases.ts)").toEqual([]);
    expect(Object.keys(authCases).filter((path) => !paths.includes(path)), "cases for endpoints better-auth no longer has").toEqual([]);
  });

  it("without a session: 401 with the JSON error on every route that needs one", async () => {
    for (const [key, spec] of Object.entries(apiCases)) {
      if (spec.access !== "session") continue;
      const method = key.split(" ")[0]!;
      const request = spec.request!(ctx);
      const answer = await ctx.call(undefined, method, request.path, request.body);
      expectApiError(answer, 401, `anonymous ${method} ${request.path}`);
      expect(answer.body.error.code).toBe("unauthenticated");
    }
    for (const [path, spec] of Object.entries(authCases)) {
      if (spec.access !== "session") continue;
      const request = spec.request!(ctx);
      const answer = await ctx.call(undefined, request.method, request.path, request.body);
      expect(answer.status, `anonymous ${request.method} ${path}: ${answer.text.slice(0, 200)}`).toBe(spec.anonymous ?? 401);
    }
  });

  it("signed in as A with B's ids: 404 (or the spec's error) everywhere, and B's data does not change", { timeout: 300_000 }, async () => {
    const before = await viewOf(ctx, ctx.b);
    expect(before.file.status).toBe(200);
    expect(before.transcription.status).toBe(200);
    for (const [key, spec] of Object.entries(apiCases)) {
      if (!spec.attack) continue;
      try {
        await spec.attack(ctx);
      } catch (error) {
        throw new Error(`${key}: ${(error as Error).message}`, { cause: error });
      }
    }
    for (const [path, spec] of Object.entries(authCases)) {
      if (!spec.attack) continue;
      try {
        await spec.attack(ctx);
      } catch (error) {
        throw new Error(`/auth${path}: ${(error as Error).message}`, { cause: error });
      }
    }
    const after = await viewOf(ctx, ctx.b);
    expect(after).toEqual(before);
  });
});
