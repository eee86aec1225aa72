import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { WavSpool } from "./spool.js";

export const liveWordSchema = z.object({ text: z.string(), start: z.number(), end: z.number() });
export type LiveWordOut = z.infer<typeof liveWordSchema>;

/**
 * What a live session is, kept on disk beside its audio (decision 0037): enough for a BFF
 * that restarted to resume the session when its client comes back, or to save it (audio
 * and settled text) when the client does not.
 */
export const liveRecordSchema = z.object({
  id: z.uuid(),
  userId: z.string().min(1),
  model: z.string(),
  language: z.string(),
  diarize: z.boolean(),
  name: z.string().optional(),
  /** Every word settled so far, in order, timed from the start of the session's audio. */
  settled: z.array(liveWordSchema),
  /** The session is over and being saved (decision 0040): it may no longer be resumed. */
  saving: z.boolean().optional(),
});
export type LiveRecord = z.infer<typeof liveRecordSchema>;

const RECORD = /^live-([0-9a-f-]{36})\.json$/;

/** The spool directory: `live-<id>.wav` (the audio) and `live-<id>.json` (the record) per session. */
export class LiveRecords {
  constructor(readonly dir: string) {}

  private file(id: string, ext: "wav" | "json"): string {
    return path.join(this.dir, `live-${id}.${ext}`);
  }

  create(record: LiveRecord): WavSpool {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const spool = WavSpool.create(this.file(record.id, "wav"));
    this.save(record);
    return spool;
  }

  /** Replaces the record whole (write, then rename: a crash leaves the old or the new one). */
  save(record: LiveRecord): void {
    const target = this.file(record.id, "json");
    writeFileSync(`${target}.tmp`, JSON.stringify(record), { mode: 0o600 });
    renameSync(`${target}.tmp`, target);
  }

  /** A session another BFF process left behind; undefined when there is none (or it is unreadable). */
  async load(id: string): Promise<{ record: LiveRecord; spool: WavSpool } | undefined> {
    if (!z.uuid().safeParse(id).success) return undefined;
    let record: LiveRecord;
    try {
      record = liveRecordSchema.parse(JSON.parse(readFileSync(this.file(id, "json"), "utf8")));
    } catch {
      return undefined;
    }
    try {
      return { record, spool: await WavSpool.reopen(this.file(id, "wav")) };
    } catch {
      return undefined;
    }
  }

  /** Ids of the sessions on disk. */
  list(): string[] {
    try {
      return readdirSync(this.dir).flatMap((name) => RECORD.exec(name)?.[1] ?? []);
    } catch {
      return [];
    }
  }

  async removeRecord(id: string): Promise<void> {
    await rm(this.file(id, "json"), { force: true });
  }
}
