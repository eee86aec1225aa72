import { randomUUID } from "node:crypto";
import type { TranscriptionResult } from "@transcribe/proto/transcription/v1/transcription";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { forget } from "../src/db/revision-cache.js";
import { migrations } from "../src/db/migrations.js";
import { MAX_DELTA_CHAIN } from "../src/domain/revision-delta.js";
import { completedTranscription } from "./completed.js";
import { transcriptionApiForFile } from "./helpers.js";

/** Revisions stored as deltas (decision 0021): every revision still reads back whole and exact. */

const stack = transcriptionApiForFile();

const plain = (r: TranscriptionResult) => ({ revision: r.revision, text: r.text, segments: r.segments.map((s) => ({ id: s.id, start: s.start, end: s.end, text: s.text, speaker: s.speaker, words: s.words.map((w) => [w.word, w.start, w.end]) })) });

async function revisionOf(userId: string, id: string, revision: number) {
  return plain((await stack.api.client.getRevision({ userId, id, revision })).result!);
}

/** Saves `saves` one-word edits (some splits), answered whole or as changes; returns each revision as it read when saved. */
async function editMany(userId: string, id: string, saves: number, tag = "fix") {
  let base = (await stack.api.client.getTranscription({ userId, id })).transcription!.result!;
  const first = base.revision;
  const expected = new Map<number, ReturnType<typeof plain>>([[first, plain(base)]]);
  for (let i = 0; i < saves; i++) {
    const edits: Array<{ id?: number; text: string }> = base.segments.map((s) => ({ id: s.id, text: s.text }));
    const at = i % edits.length;
    const words = edits[at]!.text.split(" ");
    words[i % words.length] = `${tag}${i}`;
    if (i % 7 === 3 && words.length > 2) {
      // A split: the segment's tail becomes a new segment.
      edits.splice(at, 1, { id: edits[at]!.id!, text: words.slice(0, 2).join(" ") }, { text: words.slice(2).join(" ") });
    } else edits[at]!.text = words.join(" ");
    const changesOnly = i % 2 === 0;
    const saved = await stack.api.client.saveTranscript({ userId, id, baseRevision: base.revision, segments: edits, changesOnly });
    if (changesOnly) {
      expect(saved.result!.segments.length).toBeLessThanOrEqual(2);
      const byId = new Map([...base.segments, ...saved.result!.segments].map((s) => [s.id, s]));
      base = { ...saved.result!, segments: saved.segmentIds.map((sid) => byId.get(sid)!) } as TranscriptionResult;
    } else base = saved.result!;
    expect(base.revision).toBe(first + i + 1);
    expected.set(base.revision, plain(base));
  }
  return expected;
}

describe("revision deltas", () => {
  it("stores edits as deltas with a snapshot every MAX_DELTA_CHAIN, and reads every revision back exactly", async () => {
    const alice = `alice-${randomUUID()}`;
    const id = await completedTranscription(stack.database.db, alice);
    const saves = MAX_DELTA_CHAIN + 8;
    const expected = await editMany(alice, id, saves);

    const rows = await stack.database.db
      .selectFrom("transcription_revisions")
      .select(["number", "kind", "chain", sql<boolean>`segments is not null`.as("whole"), sql<boolean>`delta is not null`.as("is_delta"), sql<number>`octet_length(coalesce(delta, segments)::text)`.as("bytes")])
      .where("transcription_id", "=", id)
      .orderBy("number")
      .execute();
    expect(rows).toHaveLength(saves + 1);
    const snapshots = rows.filter((r) => r.kind === "edit" && r.whole);
    expect(snapshots.map((r) => r.number)).toEqual([MAX_DELTA_CHAIN + 2]);
    expect(rows.filter((r) => r.is_delta)).toHaveLength(saves - 1);
    expect(Math.max(...rows.map((r) => r.chain))).toBe(MAX_DELTA_CHAIN);
    // A delta holds the changed segments, far less than the whole list.
    const whole = rows.find((r) => r.whole)!.bytes;
    for (const r of rows.filter((r) => r.is_delta)) expect(r.bytes).toBeLessThan(whole);

    // Read from the database, not from what this process remembers of its own saves.
    forget(id);
    for (const [number, want] of expected) expect(await revisionOf(alice, id, number)).toEqual(want);

    // Restoring a delta revision brings back its segments, stored whole.
    forget(id);
    const restored = await stack.api.client.restoreRevision({ userId: alice, id, revision: 5 });
    expect(plain(restored.result!).segments).toEqual(expected.get(5)!.segments);
    forget(id);
    expect((await revisionOf(alice, id, restored.revision!.number)).segments).toEqual(expected.get(5)!.segments);
    // And an edit after it is a delta over the restore.
    const after = await editMany(alice, id, 1, "after");
    forget(id);
    expect(await revisionOf(alice, id, restored.revision!.number + 1)).toEqual([...after.values()].at(-1));
  });

  it("0007_revision_deltas turns whole stored edits into deltas that read the same", async () => {
    const bob = `bob-${randomUUID()}`;
    const id = await completedTranscription(stack.database.db, bob);
    const expected = await editMany(bob, id, 6);
    // Back to how 0004 stored edits: every one whole.
    forget(id);
    for (const [number, want] of expected) {
      if (number === 1) continue; // the engine's result
      const read = (await stack.api.client.getRevision({ userId: bob, id, revision: number })).result!;
      const segments = read.segments.map((s) => ({ id: s.id, start: s.start, end: s.end, text: s.text, words: s.words.map((w) => ({ word: w.word, start: w.start, end: w.end, ...(w.probability !== undefined ? { probability: w.probability } : {}) })), ...(s.speaker ? { speaker: s.speaker } : {}) }));
      expect(plain(read)).toEqual(want);
      await sql`update transcription_revisions set delta = null, chain = 0, segments = ${JSON.stringify(segments)}::json where transcription_id = ${id} and number = ${number}`.execute(stack.database.db);
    }
    await sql`alter table transcription_revisions drop column delta, drop column chain`.execute(stack.database.db);
    await migrations["0007_revision_deltas"]!.up(stack.database.db);

    const rows = await stack.database.db.selectFrom("transcription_revisions").select(["number", "chain", "segments", "delta"]).where("transcription_id", "=", id).orderBy("number").execute();
    expect(rows.map((r) => r.chain)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(rows.slice(1).every((r) => r.segments === null && r.delta !== null)).toBe(true);
    forget(id);
    for (const [number, want] of expected) expect(await revisionOf(bob, id, number)).toEqual(want);
  });
});
