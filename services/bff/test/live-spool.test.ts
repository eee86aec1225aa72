import { appendFileSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SessionLease } from "../src/live/lease.js";
import { LiveRecords } from "../src/live/records.js";
import { WavSpool } from "../src/live/spool.js";

/**
 * What a live session leaves on disk for the next BFF process (decision 0037): the audio
 * as acknowledged, a record that is whole or absent, and a reopened spool that goes on
 * where the last whole sample ended.
 */
describe("live spool and records on disk", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "live-spool-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const record = (id: string) => ({ id, userId: "u1", model: "whisper-base", language: "en", diarize: false, settled: [] as Array<{ text: string; start: number; end: number }> });

  it("every appended frame is in the file at once (no buffering a crash could lose), and read back from any offset", () => {
    const records = new LiveRecords(dir);
    const spool = records.create(record("5b1f0a52-0c1e-4d43-9d3c-1a2b3c4d5e6f"));
    spool.append(Uint8Array.from([1, 0, 2, 0]));
    spool.append(Uint8Array.from([3, 0]));
    expect(statSync(spool.path).size).toBe(44 + 6);
    expect(spool.audioBytes).toBe(6);
    expect([...spool.read(2)]).toEqual([2, 0, 3, 0]);
    expect([...spool.read(3)]).toEqual([2, 0, 3, 0]); // never from half a sample
  });

  it("a reopened spool drops a half-written sample, appends after the rest, and closes as a valid WAV", async () => {
    const file = path.join(dir, "live-x.wav");
    const first = WavSpool.create(file);
    first.append(Uint8Array.from([1, 0, 2, 0]));
    first.release();
    appendFileSync(file, Uint8Array.from([9])); // a crash mid-sample
    const again = await WavSpool.reopen(file);
    expect(again.audioBytes).toBe(4);
    again.append(Uint8Array.from([3, 0]));
    await again.close();
    const wav = readFileSync(file);
    expect(wav.readUInt32LE(40)).toBe(6);
    expect([...wav.subarray(44)]).toEqual([1, 0, 2, 0, 3, 0]);
  });

  it("records: saved whole, listed by id, loaded with their audio; a broken record or an odd id loads as nothing", async () => {
    const records = new LiveRecords(dir);
    const id = "0d9c6a4e-8f7b-4a3c-9e2d-1f0a2b3c4d5e";
    const r = record(id);
    const spool = records.create(r);
    spool.append(Uint8Array.from([5, 0]));
    r.settled.push({ text: " Hello", start: 0, end: 0.4 });
    records.save(r);
    spool.release();
    expect(records.list()).toEqual([id]);
    const loaded = await records.load(id);
    expect(loaded?.record.settled).toEqual([{ text: " Hello", start: 0, end: 0.4 }]);
    expect(loaded?.spool.audioBytes).toBe(2);
    loaded?.spool.release();

    expect(await records.load("../../etc/passwd")).toBeUndefined();
    await writeFile(path.join(dir, `live-${id}.json`), "{ not json");
    expect(await records.load(id)).toBeUndefined();
    await records.removeRecord(id);
    expect(records.list()).toEqual([]);
  });

  it("leases: one holder at a time; taking over tells the old holder at its next check; a stopped holder's lease reads as long idle", () => {
    const id = "0d6f5a52-0c1e-4d43-9d3c-1a2b3c4d5e6f";
    expect(SessionLease.idleMs(dir, id)).toBeUndefined();
    const a = SessionLease.take(dir, id)!;
    expect(a.epoch).toBe(1);
    expect(a.held()).toBe(true);
    expect(SessionLease.idleMs(dir, id)).toBeLessThan(5_000);
    // Another replica takes it over (its client resumed there).
    const b = SessionLease.take(dir, id)!;
    expect(b.epoch).toBe(2);
    expect(a.held()).toBe(false);
    expect(b.held()).toBe(true);
    // Renewing is how the holder shows it is alive; a lease nobody renews grows idle.
    expect(SessionLease.idleMs(dir, id, Date.now() + 60_000)).toBeGreaterThan(50_000);
    b.renew();
    expect(SessionLease.idleMs(dir, id)).toBeLessThan(5_000);
    // A holder that stops lets go: its lease reads as idle for ages, and the epochs go on (no holder of an old epoch holds again).
    b.release();
    expect(SessionLease.idleMs(dir, id)).toBeGreaterThan(1e9);
    const c = SessionLease.take(dir, id)!;
    expect(c.epoch).toBe(3);
    expect(b.held()).toBe(false);
    expect(a.held()).toBe(false);
    SessionLease.take(dir, id); // epoch 4: epoch 2's file goes, and epoch 1 still knows it lost
    expect(a.held()).toBe(false);
    SessionLease.removeAll(dir, id);
    expect(SessionLease.idleMs(dir, id)).toBeUndefined();
  });
});
