import { randomUUID } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import { decodeEvent, type EventEnvelope } from "@transcribe/platform";
import { TranscriptEditedSchema } from "@transcribe/proto/events/v1/events";
import type { TranscriptionResult } from "@transcribe/proto/transcription/v1/transcription";
import { describe, expect, it } from "vitest";
import { MAX_SEGMENT_TEXT } from "../src/domain/edit-timing.js";
import { MAX_COUNTED } from "../src/search.js";
import { completedTranscription, type CompletedOptions } from "./completed.js";
import { transcriptionApiForFile } from "./helpers.js";

const stack = transcriptionApiForFile();

const completed = (userId: string, options: CompletedOptions = {}) => completedTranscription(stack.database.db, userId, options);

async function refusal(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error("expected a refusal");
}

const editsOf = (result: TranscriptionResult) => result.segments.map((s) => ({ id: s.id, text: s.text }));

async function current(userId: string, id: string) {
  const { transcription } = await stack.api.client.getTranscription({ userId, id });
  return transcription!.result!;
}

async function edited(): Promise<EventEnvelope[]> {
  const rows = (await stack.database.db.selectFrom("platform_outbox" as never).selectAll().orderBy("seq" as never).execute()) as Array<{
    id: string;
    type: string;
    topic: string;
    key: string;
    payload: Uint8Array;
    occurred_at: Date;
  }>;
  return rows
    .filter((r) => r.type === TranscriptEditedSchema.typeName)
    .map((r) => ({ id: r.id, type: r.type, topic: r.topic as EventEnvelope["topic"], key: r.key, payload: r.payload, occurredAt: r.occurred_at }));
}

const search = (userId: string, query: string, limit = 20, offset = 0) => stack.api.client.searchTranscripts({ userId, query, limit, offset });

describe("revisions", () => {
  it("corrects a word, keeps its time, keeps the original, refuses a stale save, restores", async () => {
    const alice = `alice-${randomUUID()}`;
    const id = await completed(alice);
    const original = await current(alice, id);
    expect(original.revision).toBe(1);
    const renew = original.segments[0]!.words.find((w) => w.word === "renew")!;
    expect(renew).toBeDefined();

    const edits = editsOf(original);
    edits[0]!.text = edits[0]!.text.replace("renew", "review");
    const saved = await stack.api.client.saveTranscript({ userId: alice, id, baseRevision: 1, segments: edits });
    expect(saved.revision).toMatchObject({ number: 2, kind: "edit", authorId: alice, baseRevision: 1 });
    expect(saved.revision!.changes).toMatchObject({ editedSegments: [0], wordsAdded: 1, wordsRemoved: 1 });
    const after = await current(alice, id);
    expect(after.revision).toBe(2);
    const review = after.segments[0]!.words.find((w) => w.word === "review")!;
    expect([review.start, review.end]).toEqual([renew.start, renew.end]);
    expect(after.segments.slice(1)).toEqual(original.segments.slice(1));

    // The engine's result is untouched and still readable.
    const first = await stack.api.client.getRevision({ userId: alice, id, revision: 1 });
    expect(first.result!.segments[0]!.text).toContain("renew");
    const asOf1 = await stack.api.client.getTranscription({ userId: alice, id, revision: 1 });
    expect(asOf1.transcription!.result!.segments).toEqual(original.segments);

    const list = await stack.api.client.listRevisions({ userId: alice, id });
    expect(list.currentRevision).toBe(2);
    expect(list.revisions.map((r) => [r.number, r.kind])).toEqual([
      [2, "edit"],
      [1, "original"],
    ]);

    const events = (await edited()).map((e) => decodeEvent(e)).filter((e) => e.$typeName === TranscriptEditedSchema.typeName);
    expect(events.some((e) => "transcriptId" in e && e.transcriptId === id && "revision" in e && e.revision === 2)).toBe(true);

    // A second editor still on revision 1: 409-to-be with the current revision, nothing written.
    const stale = editsOf(original);
    stale[1]!.text = "Somebody else typed this.";
    const conflict = await refusal(stack.api.client.saveTranscript({ userId: alice, id, baseRevision: 1, segments: stale }));
    expect(conflict.code).toBe(Code.FailedPrecondition);
    expect((await current(alice, id)).revision).toBe(2);
    // Overwriting: the same text, based on the current revision.
    const overwrite = await stack.api.client.saveTranscript({ userId: alice, id, baseRevision: 2, segments: stale });
    expect(overwrite.revision!.number).toBe(3);

    const restored = await stack.api.client.restoreRevision({ userId: alice, id, revision: 1 });
    expect(restored.revision).toMatchObject({ number: 4, kind: "restore", restoredFrom: 1 });
    expect((await current(alice, id)).segments).toEqual(original.segments);
  });

  it("splits a segment: both halves keep their words' times and the new one gets a new id", async () => {
    const alice = `alice-${randomUUID()}`;
    const id = await completed(alice);
    const original = await current(alice, id);
    const words = original.segments[2]!.words.map((w) => w.word);
    const edits: Array<{ id?: number; text: string }> = editsOf(original);
    edits.splice(2, 1, { id: 2, text: words.slice(0, 5).join(" ") }, { text: words.slice(5).join(" ") });
    const saved = await stack.api.client.saveTranscript({ userId: alice, id, baseRevision: 1, segments: edits });
    const segments = saved.result!.segments;
    expect(segments).toHaveLength(original.segments.length + 1);
    expect(segments[3]!.id).toBe(original.segments.length);
    expect(segments[3]!.start).toBe(original.segments[2]!.words[5]!.start);
    expect(segments[3]!.end).toBe(original.segments[2]!.end);
    expect([...segments[2]!.words, ...segments[3]!.words]).toEqual(original.segments[2]!.words);
  });

  it("refuses bad input with a clear 4xx code and changes nothing", async () => {
    const alice = `alice-${randomUUID()}`;
    const id = await completed(alice);
    const other = await completed(alice, { name: "Other" });
    const original = await current(alice, id);
    await stack.api.client.saveTranscript({ userId: alice, id: other, baseRevision: 1, segments: [{ id: 0, text: "Only this." }] });
    const before = await stack.database.db.selectFrom("transcription_search_segments").selectAll().where("transcription_id", "=", id).orderBy("segment_id").execute();

    const unknown = await refusal(stack.api.client.saveTranscript({ userId: alice, id, baseRevision: 1, segments: [...editsOf(original), { id: 4242, text: "x" }] }));
    expect(unknown.code).toBe(Code.InvalidArgument);
    expect(unknown.rawMessage).toBe("Unknown segment id 4242");

    const tooLong = editsOf(original);
    tooLong[0]!.text = "word ".repeat(MAX_SEGMENT_TEXT / 5 + 1);
    const long = await refusal(stack.api.client.saveTranscript({ userId: alice, id, baseRevision: 1, segments: tooLong }));
    expect(long.code).toBe(Code.InvalidArgument);
    expect(long.rawMessage).toBe(`Segment text is too long: at most ${MAX_SEGMENT_TEXT} characters`);

    // Revision 2 exists on the other transcript only.
    expect((await refusal(stack.api.client.getRevision({ userId: alice, id, revision: 2 }))).code).toBe(Code.NotFound);
    expect((await refusal(stack.api.client.restoreRevision({ userId: alice, id, revision: 2 }))).code).toBe(Code.NotFound);
    expect((await refusal(stack.api.client.getTranscription({ userId: alice, id, revision: 2 }))).code).toBe(Code.NotFound);
    // Someone else's transcript is not found, whatever the revision.
    expect((await refusal(stack.api.client.listRevisions({ userId: "mallory", id }))).code).toBe(Code.NotFound);
    expect((await refusal(stack.api.client.saveTranscript({ userId: "mallory", id, baseRevision: 1, segments: editsOf(original) }))).code).toBe(Code.NotFound);
    expect((await refusal(stack.api.client.restoreRevision({ userId: "mallory", id, revision: 1 }))).code).toBe(Code.NotFound);

    expect(await current(alice, id)).toEqual(original);
    const list = await stack.api.client.listRevisions({ userId: alice, id });
    expect(list.revisions).toHaveLength(1);
    const after = await stack.database.db.selectFrom("transcription_search_segments").selectAll().where("transcription_id", "=", id).orderBy("segment_id").execute();
    expect(after).toEqual(before);
  });
});

describe("search", () => {
  it("finds a user's words with their time, never another user's; edits are found at once; accents do not matter", async () => {
    const alice = `alice-${randomUUID()}`;
    const bob = `bob-${randomUUID()}`;
    const id = await completed(alice, { name: "Budget review" });
    const original = await current(alice, id);

    const found = await search(alice, "committee");
    expect(found.totalCount).toBe(1);
    expect(found.hits[0]).toMatchObject({ transcriptionId: id, segmentId: 0, start: original.segments[0]!.start, end: original.segments[0]!.end });
    expect(found.hits[0]!.snippet).toContain("<mark>committee</mark>");
    expect((await search(bob, "committee")).totalCount).toBe(0);

    // Language-aware: the English stemmer finds "meeting" for "meetings".
    expect((await search(alice, "meetings")).hits.map((h) => h.segmentId)).toContain(5);
    // Accents: the engine wrote "cafe"; "café" finds it.
    const cafe = await search(alice, "café");
    expect(cafe.hits.map((h) => h.segmentId)).toEqual([2]);
    expect(cafe.hits[0]!.snippet).toContain("<mark>cafe</mark>");

    // Names, too, and HTML in text comes back escaped.
    const named = await search(alice, "budget");
    expect(named.hits[0]).toMatchObject({ transcriptionId: id, displayName: "Budget review", start: 0 });
    expect(named.hits[0]!.segmentId).toBeUndefined();

    const edits = editsOf(original);
    edits[0]!.text = edits[0]!.text.replace("renew", "review");
    edits[2]!.text = edits[2]!.text.replace("cafe", "café <b>bold</b> & <script>x</script>");
    await stack.api.client.saveTranscript({ userId: alice, id, baseRevision: 1, segments: edits });
    expect((await search(alice, "renew")).totalCount).toBe(0);
    expect((await search(alice, "review")).hits.some((h) => h.segmentId === 0)).toBe(true);
    const accented = await search(alice, "cafe");
    expect(accented.hits[0]!.snippet).toContain("<mark>café</mark>");
    // ts_headline drops what its parser takes for tags; everything else comes back escaped.
    expect(accented.hits[0]!.snippet).toMatch(/bold\s+&amp;/);
    expect(accented.hits[0]!.snippet.replace(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
    expect((await search(bob, "review")).totalCount).toBe(0);

    await stack.api.client.deleteTranscription({ userId: alice, id });
    expect((await search(alice, "committee")).totalCount).toBe(0);
    expect((await search(alice, "budget")).totalCount).toBe(0);
  });

  it("uses the transcript's language: German stems, and simple for a language without a stemmer", async () => {
    const carol = `carol-${randomUUID()}`;
    await completed(carol, { language: "de", name: "Sitzung", segments: [{ start: 1, end: 3, text: "Die Sitzungen beginnen pünktlich.", words: [] }] });
    await completed(carol, { language: "ja", name: "Japan", segments: [{ start: 2, end: 4, text: "Tokyo station announcement", words: [] }] });
    expect((await search(carol, "Sitzung")).hits.map((h) => h.start)).toContain(1);
    expect((await search(carol, "punktlich")).totalCount).toBe(1);
    expect((await search(carol, "station")).hits[0]!.start).toBe(2);
    const page = await search(carol, "station", 1, 5);
    expect(page.hits).toEqual([]);
    expect(page.totalCount).toBe(1);
    expect((await refusal(search(carol, "   "))).code).toBe(Code.InvalidArgument);
    expect((await refusal(search(carol, "x".repeat(201)))).code).toBe(Code.InvalidArgument);
  });

  it("counts up to MAX_COUNTED segment hits exactly, then says there are more; pages stay inside the counted hits", async () => {
    const dave = `dave-${randomUUID()}`;
    const many = MAX_COUNTED + 5;
    await completed(dave, {
      name: "Ferry log",
      segments: Array.from({ length: many }, (_, i) => ({ start: i * 2, end: i * 2 + 1.5, text: `harbour entry number ${i}`, words: [] })),
    });
    await completed(dave, { name: "Coast", segments: [0, 1, 2].map((i) => ({ start: i, end: i + 1, text: `lighthouse ${i}`, words: [] })) });

    const capped = await search(dave, "harbour");
    expect(capped.totalCount).toBe(MAX_COUNTED);
    expect(capped.totalCapped).toBe(true);
    expect(capped.hits).toHaveLength(20);
    const last = await search(dave, "harbour", 20, MAX_COUNTED - 5);
    expect(last.hits).toHaveLength(5);
    expect(last.totalCount).toBe(MAX_COUNTED);
    const past = await search(dave, "harbour", 20, MAX_COUNTED + 20);
    expect(past.hits).toEqual([]);
    expect(past).toMatchObject({ totalCount: MAX_COUNTED, totalCapped: true });

    const exact = await search(dave, "lighthouse");
    expect(exact).toMatchObject({ totalCount: 3, totalCapped: false });
    expect(exact.hits.map((h) => h.start).sort()).toEqual([0, 1, 2]);
  });
});
