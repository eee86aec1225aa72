import { expect } from "vitest";
import { expectApiError, type MatrixContext, read, spoilSignature } from "./matrix.js";

/**
 * How a route decides who may call it:
 * - session: the signed-in user; 401 without a session;
 * - public: anyone (health, blog, contact, signed webhooks);
 * - signature: the signed URL itself (storage), never the cookie;
 * - auth-service: the /auth/* proxy; its endpoints have their own table (auth-cases.ts).
 */
export type Access = "session" | "public" | "signature" | "auth-service";

export interface ApiCase {
  access: Access;
  /** The request the anonymous sweep sends: B's ids wherever the route takes one. */
  request?: (ctx: MatrixContext) => { path: string; body?: unknown };
  /** User A goes after user B's data through the route; asserts the refusal and that B's data stayed. */
  attack?: (ctx: MatrixContext) => Promise<void>;
}

/** A's own answer may carry A's ids, never B's. */
function expectNothingOf(ctx: MatrixContext, value: unknown, what: string) {
  const text = JSON.stringify(value);
  for (const id of [ctx.b.id, ctx.b.email, ctx.ids.bFile, ctx.ids.bTranscription]) expect(text, `${what} shows B's ${id}`).not.toContain(id);
}

/** Field names through which a careless handler could take a user id from the request. */
const smuggled = (ctx: MatrixContext) => ({ user_id: ctx.b.id, userId: ctx.b.id, id: ctx.b.id, email: ctx.b.email });
const smuggledQuery = (ctx: MatrixContext) => `user_id=${ctx.b.id}&userId=${ctx.b.id}`;

/** A route scoped to the caller: A's answer (even with B's id smuggled in) is about A. */
function own(method: string, path: string, body?: (ctx: MatrixContext) => unknown): ApiCase {
  return {
    access: "session",
    request: (ctx) => ({ path, ...(body ? { body: body(ctx) } : {}) }),
    async attack(ctx) {
      const separator = path.includes("?") ? "&" : "?";
      const answer = await ctx.call(ctx.a, method, `${path}${separator}${smuggledQuery(ctx)}`, body ? { ...smuggled(ctx), ...(body(ctx) as object) } : undefined);
      expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 200)}`).toBeLessThan(500);
      expectNothingOf(ctx, answer.body, `${method} ${path}`);
    },
  };
}

/** A route that takes B's id in its path: 404 for A, like an id that does not exist. */
function byId(method: string, path: (ctx: MatrixContext) => string, body?: unknown, after?: (ctx: MatrixContext) => Promise<void>): ApiCase {
  return {
    access: "session",
    request: (ctx) => ({ path: path(ctx), ...(body === undefined ? {} : { body }) }),
    async attack(ctx) {
      expectApiError(await ctx.call(ctx.a, method, path(ctx), body), 404, `${method} ${path(ctx)} with B's id`);
      await after?.(ctx);
    },
  };
}

const public_ = (request?: ApiCase["request"], attack?: ApiCase["attack"]): ApiCase => ({ access: "public", ...(request ? { request } : {}), ...(attack ? { attack } : {}) });

async function bStillHasTranscription(ctx: MatrixContext) {
  const answer = await ctx.call(ctx.b, "GET", `/api/v1/transcriptions/${ctx.ids.bTranscription}`);
  expect(answer.status, "B still reads the transcription").toBe(200);
}

/** Every route of the BFF under /api and /auth, keyed `METHOD pattern` (`*` for every method). */
export const apiCases: Record<string, ApiCase> = {
  "GET /api/v1/openapi.json": public_(),
  "GET /api/docs": public_(),
  "GET /api/docs/redoc.js": public_(),
  "GET /api/docs/init.js": public_(),
  "GET /api/v1/health": public_(),
  "GET /api/v1/me": {
    ...own("GET", "/api/v1/me"),
    async attack(ctx) {
      const answer = await ctx.call(ctx.a, "GET", `/api/v1/me?${smuggledQuery(ctx)}`);
      expect(answer.body.id).toBe(ctx.a.id);
      expectNothingOf(ctx, answer.body, "/me");
    },
  },
  "GET /api/v1/models": own("GET", "/api/v1/models"),
  "GET /api/v1/vocabulary": own("GET", "/api/v1/vocabulary"),
  "PUT /api/v1/vocabulary": own("PUT", "/api/v1/vocabulary", () => ({ terms: [{ term: "a's term" }] })),
  // Administrators only (ADMIN_EMAILS, empty in the matrix): A is refused and no model changes.
  "POST /api/v1/models/:id/download": {
    access: "session",
    request: () => ({ path: "/api/v1/models/whisper-small/download" }),
    async attack(ctx) {
      expectApiError(await ctx.call(ctx.a, "POST", "/api/v1/models/whisper-small/download"), 403, "a non-administrator's model download");
    },
  },
  "DELETE /api/v1/models/:id": {
    access: "session",
    request: () => ({ path: "/api/v1/models/whisper-tiny.en" }),
    async attack(ctx) {
      expectApiError(await ctx.call(ctx.a, "DELETE", "/api/v1/models/whisper-tiny.en"), 403, "a non-administrator's model removal");
    },
  },
  "POST /api/v1/upload": own("POST", "/api/v1/upload", () => ({ file_name: "a.wav", file_size: 1000, content_type: "audio/wav", duration: 1 })),
  "GET /api/v1/usage-stats": own("GET", "/api/v1/usage-stats"),
  "GET /api/v1/trial-limits": own("GET", "/api/v1/trial-limits"),
  "GET /api/v1/ai-greeting": own("GET", "/api/v1/ai-greeting"),
  "GET /api/v1/files": {
    ...own("GET", "/api/v1/files"),
    async attack(ctx) {
      const answer = await ctx.call(ctx.a, "GET", `/api/v1/files?limit=100&${smuggledQuery(ctx)}`);
      expect(answer.body.files.map((f: { id: string }) => f.id)).toContain(ctx.ids.aFile);
      expectNothingOf(ctx, answer.body, "A's file list");
    },
  },
  "GET /api/v1/files/:id": byId("GET", (ctx) => `/api/v1/files/${ctx.ids.bFile}`),
  "DELETE /api/v1/files/:id": byId("DELETE", (ctx) => `/api/v1/files/${ctx.ids.bFile}`, undefined, async (ctx) => {
    expect((await ctx.call(ctx.b, "GET", `/api/v1/files/${ctx.ids.bFile}`)).status, "B's file survives").toBe(200);
  }),
  "GET /api/v1/files/:id/audio-url": byId("GET", (ctx) => `/api/v1/files/${ctx.ids.bFile}/audio-url`),
  "POST /api/v1/retrieve": own("POST", "/api/v1/retrieve", () => ({ url: "http://127.0.0.1/not-allowed.mp3" })),
  "POST /api/v1/transcriptions": {
    access: "session",
    request: (ctx) => ({ path: "/api/v1/transcriptions", body: { file_id: ctx.ids.bFile, settings: { model: "whisper-tiny.en", language: "en" } } }),
    async attack(ctx) {
      const before = (await ctx.call(ctx.a, "GET", "/api/v1/transcriptions")).body.total_count;
      const answer = await ctx.call(ctx.a, "POST", "/api/v1/transcriptions", { file_id: ctx.ids.bFile, settings: { model: "whisper-tiny.en", language: "en" } });
      expectApiError(answer, 404, "transcribing B's file");
      expect((await ctx.call(ctx.a, "GET", "/api/v1/transcriptions")).body.total_count, "no transcription made for A").toBe(before);
    },
  },
  "GET /api/v1/transcriptions": {
    ...own("GET", "/api/v1/transcriptions"),
    async attack(ctx) {
      for (const query of ["", `?q=${encodeURIComponent("speech")}`, "?status=completed", `?${smuggledQuery(ctx)}`]) {
        const answer = await ctx.call(ctx.a, "GET", `/api/v1/transcriptions${query}`);
        expect(answer.status).toBe(200);
        expectNothingOf(ctx, answer.body, `A's list ${query}`);
      }
    },
  },
  "GET /api/v1/transcriptions/:id": byId("GET", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}`),
  "DELETE /api/v1/transcriptions/:id": byId("DELETE", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}`, undefined, bStillHasTranscription),
  "PATCH /api/v1/transcriptions/:id/rename": byId("PATCH", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}/rename`, { new_name: "renamed by A" }, async (ctx) => {
    const answer = await ctx.call(ctx.b, "GET", `/api/v1/transcriptions/${ctx.ids.bTranscription}`);
    expect(answer.body.display_name).not.toBe("renamed by A");
  }),
  "POST /api/v1/transcriptions/:id/retry": byId("POST", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}/retry`, {}, bStillHasTranscription),
  "PATCH /api/v1/transcriptions/:id/speakers/:speaker_id": byId(
    "PATCH",
    (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}/speakers/S1`,
    { name: "renamed by A" },
    bStillHasTranscription,
  ),
  "DELETE /api/v1/transcriptions/:id/speakers/:speaker_id/voice": byId("DELETE", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}/speakers/S1/voice`, undefined, bStillHasTranscription),
  "POST /api/v1/transcriptions/:id/diarize": byId("POST", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}/diarize`, {}, bStillHasTranscription),
  "GET /api/v1/transcriptions/:id/audio-url": byId("GET", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}/audio-url`),
  "POST /api/v1/transcriptions/:id/export": byId("POST", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}/export`, { format: "txt" }, async (ctx) => {
    // The control: the same request is no 404 for B (200 once the engine finished).
    const mine = await ctx.call(ctx.b, "POST", `/api/v1/transcriptions/${ctx.ids.bTranscription}/export`, { format: "txt" });
    expect(mine.status, `B exports: ${mine.text.slice(0, 200)}`).toBe(ctx.ids.bCompleted ? 200 : 409);
  }),
  "PUT /api/v1/transcriptions/:id/result": byId("PUT", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}/result`, { base_revision: 1, segments: [{ id: 0, text: "written by A" }] }, bStillHasTranscription),
  "GET /api/v1/transcriptions/:id/revisions": byId("GET", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}/revisions`),
  "GET /api/v1/transcriptions/:id/revisions/:rev": byId("GET", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}/revisions/1`),
  "POST /api/v1/transcriptions/:id/revisions/:rev/restore": byId("POST", (ctx) => `/api/v1/transcriptions/${ctx.ids.bTranscription}/revisions/1/restore`, undefined, bStillHasTranscription),
  "GET /api/v1/search": {
    ...own("GET", "/api/v1/search?q=the"),
    async attack(ctx) {
      // A searches for B's transcript by its name and by its id: nothing of B's comes back.
      for (const q of ["speech", ctx.ids.bTranscription, ctx.b.id]) {
        const answer = await ctx.call(ctx.a, "GET", `/api/v1/search?q=${encodeURIComponent(q)}&${smuggledQuery(ctx)}`);
        expect(answer.status, `search ${q}: ${answer.text.slice(0, 200)}`).toBe(200);
        expectNothingOf(ctx, answer.body, `search ${q}`);
      }
    },
  },
  "POST /api/v1/billing/checkout": own("POST", "/api/v1/billing/checkout"),
  "POST /api/v1/billing/portal": own("POST", "/api/v1/billing/portal"),
  "GET /api/v1/billing/subscription": own("GET", "/api/v1/billing/subscription"),
  "POST /api/v1/billing/restore": own("POST", "/api/v1/billing/restore"),
  "POST /auth/subscription/restore": own("POST", "/auth/subscription/restore"),
  "POST /api/v1/billing/webhook": public_(undefined, async (ctx) => {
    // A forged Stripe event naming B: refused without Stripe's signature (B's plan is in the before/after view).
    const event = { id: "evt_forged", type: "checkout.session.completed", data: { object: { client_reference_id: ctx.b.id, metadata: { user_id: ctx.b.id } } } };
    const answer = await ctx.call(ctx.a, "POST", "/api/v1/billing/webhook", event, { "stripe-signature": "t=1,v1=00" });
    expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
    expect(answer.status, answer.text).toBeLessThan(500);
  }),
  // Developer API: keys and webhooks are managed with the session only; B's ids are 404 for A.
  "POST /api/v1/api-keys": own("POST", "/api/v1/api-keys", () => ({ name: "a's key" })),
  "GET /api/v1/api-keys": own("GET", "/api/v1/api-keys"),
  "DELETE /api/v1/api-keys/:id": byId("DELETE", (ctx) => `/api/v1/api-keys/${ctx.ids.bApiKey}`, undefined, async (ctx) => {
    const keys = await ctx.call(ctx.b, "GET", "/api/v1/api-keys");
    expect((keys.body.api_keys as Array<{ id: string }>).map((k) => k.id), "B's key survives").toContain(ctx.ids.bApiKey);
  }),
  "POST /api/v1/webhooks": own("POST", "/api/v1/webhooks", () => ({ url: "https://93.184.216.34/a-hooks", events: ["transcription.failed"] })),
  "GET /api/v1/webhooks": own("GET", "/api/v1/webhooks"),
  "DELETE /api/v1/webhooks/:id": byId("DELETE", (ctx) => `/api/v1/webhooks/${ctx.ids.bWebhook}`, undefined, async (ctx) => {
    const hooks = await ctx.call(ctx.b, "GET", "/api/v1/webhooks");
    expect((hooks.body.webhooks as Array<{ id: string }>).map((h) => h.id), "B's webhook survives").toContain(ctx.ids.bWebhook);
  }),
  "GET /api/v1/webhooks/:id/deliveries": byId("GET", (ctx) => `/api/v1/webhooks/${ctx.ids.bWebhook}/deliveries`),
  "POST /api/v1/webhooks/:id/deliveries/:delivery_id/resend": byId("POST", (ctx) => `/api/v1/webhooks/${ctx.ids.bWebhook}/deliveries/00000000-0000-4000-8000-000000000000/resend`),
  // The voice library is the caller's own (B's setting and voices are in the before/after view).
  "GET /api/v1/voices/settings": own("GET", "/api/v1/voices/settings"),
  "PUT /api/v1/voices/settings": own("PUT", "/api/v1/voices/settings", () => ({ enabled: false })),
  "GET /api/v1/voices": own("GET", "/api/v1/voices"),
  // B has no saved voice here (that needs a diarized, renamed transcript): an id A does not own is 404
  // like any other; services/transcription/test/voices.test.ts tries another user's real voice.
  "PATCH /api/v1/voices/:id": byId("PATCH", () => "/api/v1/voices/00000000-0000-4000-8000-00000000b0ce", { name: "renamed by A" }),
  "DELETE /api/v1/voices/:id": byId("DELETE", () => "/api/v1/voices/00000000-0000-4000-8000-00000000b0ce"),
  "POST /api/v1/jobs": own("POST", "/api/v1/jobs", (ctx) => ({ url: "http://127.0.0.1/b.mp3", file_id: ctx.ids.bFile })),
  "POST /v1/audio/transcriptions": own("POST", "/v1/audio/transcriptions", () => ({ model: "whisper-1" })),
  // WebSockets (decision 0030): the session (or key) decides the user; a plain GET is refused without an upgrade.
  "GET /api/v1/live": own("GET", "/api/v1/live"),
  "GET /v1/realtime": own("GET", "/v1/realtime?intent=transcription"),
  "POST /v1/audio/translations": own("POST", "/v1/audio/translations", () => ({ model: "whisper-1" })),
  "GET /v1/models": own("GET", "/v1/models"),
  "GET /api/v1/blog/posts": public_(),
  "GET /api/v1/blog/posts/:slug": public_(),
  "POST /api/v1/blog/webhook": public_(undefined, async (ctx) => {
    const answer = await ctx.call(ctx.a, "POST", "/api/v1/blog/webhook", { body: JSON.stringify({ action: "unpublish", timestamp: Date.now(), post: { slug: "x" } }), signature: "00".repeat(32) });
    expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
    expect(answer.status, answer.text).toBeLessThan(500);
  }),
  "POST /api/v1/image-proxy": own("POST", "/api/v1/image-proxy", () => ({ url: "http://127.0.0.1/avatar.png" })),
  "POST /api/v1/support": {
    access: "session",
    request: (ctx) => ({ path: "/api/v1/support", body: { subject: "s", message: "m", transcription_id: ctx.ids.bTranscription } }),
    async attack(ctx) {
      // A ticket may name only the sender's own transcript: B's is 404, so support is never pointed at it.
      const ticket = { subject: "About a transcript", message: "Please look", transcription_id: ctx.ids.bTranscription };
      // B's user id smuggled in is an unknown field: refused by the body rule (docs/api.md, "Request bodies").
      const smuggling = await ctx.call(ctx.a, "POST", "/api/v1/support", { ...ticket, ...smuggled(ctx) });
      expect(smuggling.status, smuggling.text).toBe(400);
      expect(smuggling.text).toContain("user_id: unknown field");
      const answer = await ctx.call(ctx.a, "POST", "/api/v1/support", ticket);
      if (answer.status !== 429) expectApiError(answer, 404, "POST /api/v1/support naming B's transcription");
      expectNothingOf(ctx, answer.body, "support answer");
    },
  },
  "POST /api/v1/contact": public_(),
  "GET /api/v1/storage/*": {
    access: "signature",
    async attack(ctx) {
      // A's own signed URL moved onto B's file, and B's URL with a spoiled signature: 403, cookie or not.
      const moved = ctx.ids.aAudioUrl.replace(ctx.ids.aFile, ctx.ids.bFile);
      for (const url of [moved, spoilSignature(ctx.ids.bAudioUrl), ctx.ids.bAudioUrl.split("?")[0]!]) {
        const answer = await read(await fetch(url, { headers: { cookie: ctx.a.browser.cookieHeader() } }));
        expectApiError(answer, 403, `GET ${url}`);
      }
    },
  },
  "HEAD /api/v1/storage/*": {
    access: "signature",
    async attack(ctx) {
      const moved = ctx.ids.aAudioUrl.replace(ctx.ids.aFile, ctx.ids.bFile);
      expect((await fetch(moved, { method: "HEAD" })).status).toBe(403);
    },
  },
  "PUT /api/v1/storage/*": {
    access: "signature",
    async attack(ctx) {
      // A declares an upload of its own and aims the signed PUT at B's file instead.
      const bytes = Buffer.from("RIFF....WAVEfmt not really audio");
      const declared = await ctx.call(ctx.a, "POST", "/api/v1/upload", { file_name: "x.wav", file_size: bytes.length, content_type: "audio/wav", duration: 1 });
      expect(declared.status, declared.text).toBe(200);
      const aimed = (declared.body.upload_url as string).replace(declared.body.file_id as string, ctx.ids.bFile);
      const answer = await read(await fetch(aimed, { method: "PUT", body: bytes, headers: { "content-type": "audio/wav", cookie: ctx.a.browser.cookieHeader() } }));
      // B's audio bytes are compared in the before/after view.
      expectApiError(answer, 403, "PUT onto B's file");
    },
  },
  "GET /api/v1/storage/exports/*": {
    access: "signature",
    async attack(ctx) {
      if (!ctx.ids.bExportUrl) return;
      for (const url of [spoilSignature(ctx.ids.bExportUrl), ctx.ids.bExportUrl.split("?")[0]!]) {
        const answer = await read(await fetch(url, { headers: { cookie: ctx.a.browser.cookieHeader() } }));
        expectApiError(answer, 403, `GET ${url}`);
      }
    },
  },
  "HEAD /api/v1/storage/exports/*": {
    access: "signature",
    async attack(ctx) {
      if (!ctx.ids.bExportUrl) return;
      expect((await fetch(spoilSignature(ctx.ids.bExportUrl), { method: "HEAD" })).status).toBe(403);
    },
  },
  "* /auth": { access: "auth-service" },
  "* /auth/*": { access: "auth-service" },
};
