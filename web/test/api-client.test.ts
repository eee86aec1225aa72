/// <reference types="node" />
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { camelToSnake, keysToCamel, keysToSnake, snakeToCamel } from "../src/lib/api/case";
import { createApiClient, DEFAULT_TIMEOUT_MS } from "../src/lib/api/client";
import { API_ERROR_MESSAGES, ApiError } from "../src/lib/api/errors";

describe("case conversion", () => {
  it("converts keys both ways, deeply, through arrays", () => {
    expect(snakeToCamel("total_count")).toBe("totalCount");
    expect(camelToSnake("translateToEn")).toBe("translate_to_en");
    expect(camelToSnake("fileId")).toBe("file_id");
    const wire = { total_count: 2, transcriptions: [{ display_name: "a", uploaded_at: "x", result: { segment_list: [{ start_ms: 1 }] } }] };
    const app = keysToCamel(wire);
    expect(app).toEqual({ totalCount: 2, transcriptions: [{ displayName: "a", uploadedAt: "x", result: { segmentList: [{ startMs: 1 }] } }] });
    expect(keysToSnake(app)).toEqual(wire);
  });

  it("leaves the keys of data maps alone where told to", () => {
    const wire = { language_names: { zh_hant: "Chinese", pt_br: "Portuguese" }, other_map: { a_b: 1 } };
    expect(keysToCamel(wire, { opaqueKeys: new Set(["language_names"]) })).toEqual({
      languageNames: { zh_hant: "Chinese", pt_br: "Portuguese" },
      otherMap: { aB: 1 },
    });
  });
});

describe("API client against a real HTTP server", () => {
  let server: Server;
  let baseUrl: string;
  const seen: Array<{ method?: string; url?: string; body: string; headers: Record<string, unknown> }> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        seen.push({ method: req.method, url: req.url, body, headers: req.headers });
        const send = (status: number, payload: string, statusText?: string) => {
          res.statusCode = status;
          if (statusText) res.statusMessage = statusText;
          res.setHeader("content-type", "application/json");
          res.end(payload);
        };
        const path = req.url?.split("?")[0];
        if (path === "/api/v1/ok") return send(200, JSON.stringify({ job_id: "j1", total_count: 3 }));
        if (path === "/api/v1/echo") return send(200, body || "{}");
        if (path === "/api/v1/bff-error") return send(404, JSON.stringify({ error: { code: "not_found", message: "Transcript not found" } }));
        if (path === "/api/v1/detail-message") return send(400, JSON.stringify({ detail: { message: "Bad file", code: "x" }, message: "m" }));
        if (path === "/api/v1/detail") return send(400, JSON.stringify({ detail: "Plain detail", message: "m" }));
        if (path === "/api/v1/message") return send(400, JSON.stringify({ message: "Just message", error: "e" }));
        if (path === "/api/v1/error-string") return send(400, JSON.stringify({ error: "Error string" }));
        if (path === "/api/v1/empty-error") return send(418, "{}", "I'm a teapot");
        if (path === "/api/v1/unauthorized") return send(401, JSON.stringify({ error: { code: "unauthenticated", message: "Sign in" } }));
        if (path === "/api/v1/forbidden") return send(403, JSON.stringify({ detail: { code: "SESSION_NOT_FRESH", message: "Session is not fresh" } }));
        if (path === "/api/v1/malformed") return send(200, "{not json");
        if (path === "/api/v1/slow") return void setTimeout(() => send(200, "{}"), 2_000);
        send(500, JSON.stringify({ error: { code: "internal", message: "Internal error" } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const errorOf = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      return error as ApiError;
    }
    throw new Error("expected the request to fail");
  };

  it("sends snake_case JSON, fills path and query parameters, returns camelCase validated data", async () => {
    const client = createApiClient({ baseUrl, authHeaders: () => ({ authorization: "Bearer t" }) });
    const data = await client.request({
      method: "PATCH",
      path: "/echo",
      query: { limit: 10, q: "a b", skip: undefined },
      body: { newName: "Interview", settings: { translateToEn: true } },
      schema: z.object({ newName: z.string(), settings: z.object({ translateToEn: z.boolean() }) }),
    });
    expect(data).toEqual({ newName: "Interview", settings: { translateToEn: true } });
    const last = seen.at(-1)!;
    expect(last.method).toBe("PATCH");
    expect(last.url).toBe("/api/v1/echo?limit=10&q=a+b");
    expect(JSON.parse(last.body)).toEqual({ new_name: "Interview", settings: { translate_to_en: true } });
    expect(last.headers.authorization).toBe("Bearer t");

    const ok = await client.request({ path: "/{name}", params: { name: "ok" } });
    expect(ok).toEqual({ jobId: "j1", totalCount: 3 });
  });

  it("sends form data as it is", async () => {
    const form = new FormData();
    form.set("file_name", "a.mp3");
    await createApiClient({ baseUrl }).request({ method: "POST", path: "/echo-form", formData: form }).catch(() => {});
    expect(String(seen.at(-1)!.headers["content-type"])).toMatch(/^multipart\/form-data; boundary=/);
  });

  it.each([
    ["/bff-error", 404, "Transcript not found"],
    ["/detail-message", 400, "Bad file"],
    ["/detail", 400, "Plain detail"],
    ["/message", 400, "Just message"],
    ["/error-string", 400, "Error string"],
    ["/empty-error", 418, "I'm a teapot"],
  ])("HTTP error %s takes its message in the spec's order", async (path, status, message) => {
    const error = await errorOf(createApiClient({ baseUrl }).request({ path }));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.kind).toBe("http");
    expect(error.status).toBe(status);
    expect(error.message).toBe(message);
  });

  it("calls the auth error handler on 401 and 403 with the code from the error detail", async () => {
    const onAuthError = vi.fn();
    const client = createApiClient({ baseUrl, onAuthError });
    await errorOf(client.request({ path: "/unauthorized" }));
    await errorOf(client.request({ path: "/forbidden" }));
    await errorOf(client.request({ path: "/bff-error" }));
    expect(onAuthError.mock.calls).toEqual([
      [401, "unauthenticated"],
      [403, "SESSION_NOT_FRESH"],
    ]);
  });

  it("a malformed body or a body that fails its schema is a parse error", async () => {
    const client = createApiClient({ baseUrl });
    const malformed = await errorOf(client.request({ path: "/malformed" }));
    expect([malformed.kind, malformed.message]).toEqual(["parse", API_ERROR_MESSAGES.parse]);
    const wrongShape = await errorOf(client.request({ path: "/ok", schema: z.object({ jobId: z.number() }) }));
    expect([wrongShape.kind, wrongShape.message]).toEqual(["parse", "Received malformed response from server."]);
  });

  it("times out (default 60 s) or is cancelled with the timeout message", async () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(60_000);
    const client = createApiClient({ baseUrl });
    const timedOut = await errorOf(client.request({ path: "/slow", timeoutMs: 100 }));
    expect([timedOut.kind, timedOut.message, timedOut.status]).toEqual(["timeout", "Request timed out or was cancelled", undefined]);
    const controller = new AbortController();
    const pending = client.request({ path: "/slow", signal: controller.signal });
    controller.abort();
    expect((await errorOf(pending)).kind).toBe("timeout");
  });

  it("tells a lost connection (offline) from any other failure", async () => {
    const closed = "http://127.0.0.1:1/api/v1";
    const offline = await errorOf(createApiClient({ baseUrl: closed, isOnline: () => false }).request({ path: "/x" }));
    expect([offline.kind, offline.message]).toEqual(["network", "No network connection - check your connection and try again."]);
    const other = await errorOf(createApiClient({ baseUrl: closed, isOnline: () => true }).request({ path: "/x" }));
    expect([other.kind, other.message]).toEqual([
      "other",
      "Request failed - either the server could not respond or there was a network / CORS issue.",
    ]);
  });
});
