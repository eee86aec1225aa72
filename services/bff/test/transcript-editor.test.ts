import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completedTranscription } from "../../transcription/test/completed.js";
import { type EditorStack, startEditorStack } from "./editor-stack.js";

interface Result {
  revision: number;
  segments: Array<{ id: number; start: number; end: number; text: string; words?: Array<{ word: string; start: number; end: number }> }>;
}

/**
 * The editor's HTTP contract through the real BFF, auth (magic-link sessions) and
 * transcription service (real database; the result stored as the worker stores it, with
 * the engine's real word timings).
 */
describe("transcript editor API through the BFF", () => {
  let stack: EditorStack;
  let alice: string;
  let bob: string;
  let aliceId: string;

  beforeAll(async () => {
    stack = await startEditorStack("editor");
    ({ cookie: alice, id: aliceId } = await stack.signIn("alice-editor@example.com"));
    ({ cookie: bob } = await stack.signIn("bob-editor@example.com"));
  }, 120_000);

  afterAll(() => stack?.stop());

  const api: EditorStack["api"] = (...args) => stack.api(...args);

  it("saves with If-Match, answers 409 to a stale save, lists, reads and restores revisions; others get 404", async () => {
    const id = await completedTranscription(stack.db, aliceId);
    const detail = (await (await api(alice, "GET", `/api/v1/transcriptions/${id}`)).json()) as { result: Result };
    expect(detail.result.revision).toBe(1);
    const edits = detail.result.segments.map((s) => ({ id: s.id, text: s.text }));
    edits[0]!.text = edits[0]!.text.replace("renew", "review");

    const saved = await api(alice, "PUT", `/api/v1/transcriptions/${id}/result`, { segments: edits }, { "if-match": '"rev-1"' });
    expect(saved.status).toBe(200);
    expect(saved.headers.get("etag")).toBe('"rev-2"');
    const body = (await saved.json()) as { revision: { number: number; kind: string; author_id: string }; changed: Result; segment_ids: number[] };
    expect(body.revision).toMatchObject({ number: 2, kind: "edit", author_id: aliceId });
    // Only what changed comes back: the one edited segment, and the order of all of them.
    expect(body.changed.revision).toBe(2);
    expect(body.changed.segments.map((s) => s.id)).toEqual([detail.result.segments[0]!.id]);
    expect(body.segment_ids).toEqual(detail.result.segments.map((s) => s.id));
    const review = body.changed.segments[0]!.words!.find((w) => w.word === "review")!;
    const renew = detail.result.segments[0]!.words!.find((w) => w.word === "renew")!;
    expect([review.start, review.end]).toEqual([renew.start, renew.end]);

    // The second tab, still on revision 1.
    const stale = await api(alice, "PUT", `/api/v1/transcriptions/${id}/result`, { base_revision: 1, segments: edits.map((e) => ({ ...e, text: `${e.text}!` })) });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ error: { code: "revision_conflict", detail: { current_revision: 2 } } });

    const disagree = await api(alice, "PUT", `/api/v1/transcriptions/${id}/result`, { base_revision: 2, segments: edits }, { "if-match": '"rev-1"' });
    expect(disagree.status).toBe(400);
    expect((await api(alice, "PUT", `/api/v1/transcriptions/${id}/result`, { segments: edits })).status).toBe(400);
    // Past int32 (found by the fuzzer): a 400, not a 500 from the protobuf encoder.
    expect((await api(alice, "PUT", `/api/v1/transcriptions/${id}/result`, { base_revision: 4092583915323780, segments: [] })).status).toBe(400);
    expect((await api(alice, "PUT", `/api/v1/transcriptions/${id}/result`, { segments: [] }, { "if-match": '"rev-9999999999"' })).status).toBe(400);
    expect((await api(alice, "GET", `/api/v1/transcriptions/${id}/revisions/99999999999`)).status).toBe(400);
    const unknown = await api(alice, "PUT", `/api/v1/transcriptions/${id}/result`, { base_revision: 2, segments: [{ id: 777, text: "x" }] });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toBe("Unknown segment id 777");
    const long = await api(alice, "PUT", `/api/v1/transcriptions/${id}/result`, { base_revision: 2, segments: [{ id: 0, text: "y".repeat(5001) }] });
    expect(long.status).toBe(400);

    const list = (await (await api(alice, "GET", `/api/v1/transcriptions/${id}/revisions`)).json()) as { revisions: Array<{ number: number; kind: string }>; current_revision: number };
    expect(list.current_revision).toBe(2);
    expect(list.revisions.map((r) => r.kind)).toEqual(["edit", "original"]);
    const first = await api(alice, "GET", `/api/v1/transcriptions/${id}/revisions/1`);
    expect(first.headers.get("etag")).toBe('"rev-1"');
    expect(((await first.json()) as { result: Result }).result.segments[0]!.text).toContain("renew");
    expect((await api(alice, "GET", `/api/v1/transcriptions/${id}/revisions/3`)).status).toBe(404);

    const restoredStale = await api(alice, "POST", `/api/v1/transcriptions/${id}/revisions/1/restore`, undefined, { "if-match": '"rev-1"' });
    expect(restoredStale.status).toBe(409);
    const restored = await api(alice, "POST", `/api/v1/transcriptions/${id}/revisions/1/restore`, undefined, { "if-match": '"rev-2"' });
    expect(restored.status).toBe(200);
    expect(((await restored.json()) as { revision: { number: number; restored_from: number } }).revision).toMatchObject({ number: 3, restored_from: 1 });

    for (const [method, url, body] of [
      ["PUT", `/api/v1/transcriptions/${id}/result`, { base_revision: 3, segments: edits }],
      ["GET", `/api/v1/transcriptions/${id}/revisions`, undefined],
      ["GET", `/api/v1/transcriptions/${id}/revisions/1`, undefined],
      ["POST", `/api/v1/transcriptions/${id}/revisions/1/restore`, undefined],
    ] as const) {
      expect((await api(bob, method, url, body)).status, `${method} ${url}`).toBe(404);
      expect((await api(undefined, method, url, body)).status, `${method} ${url}`).toBe(401);
    }
  });

  it("searches only the caller's transcripts, with times and escaped snippets", async () => {
    const id = await completedTranscription(stack.db, aliceId, { name: "Quarterly café notes" });
    const found = await api(alice, "GET", "/api/v1/search?q=quarterly%20report");
    expect(found.status).toBe(200);
    const body = (await found.json()) as { hits: Array<{ transcription_id: string; segment_id: number | null; start: number; snippet: string }>; total_count: number };
    const hit = body.hits.find((h) => h.transcription_id === id && h.segment_id !== null)!;
    expect(hit.start).toBeGreaterThan(17);
    expect(hit.snippet).toContain("<mark>quarterly</mark>");
    const named = (await (await api(alice, "GET", "/api/v1/search?q=cafe%20notes")).json()) as typeof body;
    expect(named.hits[0]).toMatchObject({ transcription_id: id, segment_id: null, snippet: "Quarterly <mark>café</mark> <mark>notes</mark>" });
    const bobs = (await (await api(bob, "GET", "/api/v1/search?q=quarterly")).json()) as { total_count: number };
    expect(bobs.total_count).toBe(0);
    expect((await api(alice, "GET", "/api/v1/search?q=")).status).toBe(400);
    expect((await api(undefined, "GET", "/api/v1/search?q=quarterly")).status).toBe(401);
  });

  it("documents every editor route in the OpenAPI document", async () => {
    const doc = (await (await api(undefined, "GET", "/api/v1/openapi.json")).json()) as {
      paths: Record<string, Record<string, { operationId?: string; summary?: string; tags?: string[]; security?: unknown[] }>>;
    };
    // Editing and revisions take an API key like the other transcription routes; search is the person's.
    const withKey = [{ sessionCookie: [] }, { apiKeyBearer: [] }];
    const expected = {
      "/api/v1/transcriptions/{id}/result": ["put", "saveTranscript", withKey],
      "/api/v1/transcriptions/{id}/revisions": ["get", "listTranscriptRevisions", withKey],
      "/api/v1/transcriptions/{id}/revisions/{rev}": ["get", "getTranscriptRevision", withKey],
      "/api/v1/transcriptions/{id}/revisions/{rev}/restore": ["post", "restoreTranscriptRevision", withKey],
      "/api/v1/search": ["get", "searchTranscripts", [{ sessionCookie: [] }]],
    } as const;
    for (const [path, [method, operationId, security]] of Object.entries(expected)) {
      const operation = doc.paths[path]?.[method];
      expect(operation, path).toMatchObject({ operationId, security });
      expect(operation!.summary).toBeTruthy();
      expect(operation!.tags!.length).toBeGreaterThan(0);
    }
  });
});
