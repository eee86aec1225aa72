import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Kysely } from "kysely";
import { advanceTranscription, insertJob, insertResult, json } from "../src/db/repository.js";
import { startRevisions } from "../src/db/revisions.js";
import type { TranscriptionDB } from "../src/db/schema.js";
import type { Speaker } from "../src/domain/speakers.js";
import type { Segment } from "../src/domain/transcriber.js";

/** Real word timings from the local engine over espeak-ng speech (fixtures/generate-word-timed.ts). */
export const wordTimedFixture = JSON.parse(readFileSync(path.join(import.meta.dirname, "fixtures", "word-timed.json"), "utf8")) as {
  script: string[];
  segments: Segment[];
};
const fixture = wordTimedFixture;

export interface CompletedOptions {
  name?: string;
  language?: string;
  segments?: Segment[];
  /** The result's speakers (the segments then carry their ids); none by default. */
  speakers?: Speaker[];
}

/** A completed transcription, stored by the same repository calls as the worker's completion. */
export async function completedTranscription(db: Kysely<TranscriptionDB>, userId: string, options: CompletedOptions = {}): Promise<string> {
  const id = randomUUID();
  const jobId = randomUUID();
  const resultId = randomUUID();
  const segments = options.segments ?? fixture.segments;
  const settings = { provider: "local", model: "whisper-base", responseFormat: "verbose_json", timestampGranularities: ["segment", "word"], temperature: 0, language: "en", translateToEn: false } as const;
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto("transcriptions")
      .values({
        id,
        user_id: userId,
        file_id: randomUUID(),
        display_name: options.name ?? "Committee meeting.wav",
        file_name: "speech.wav",
        content_type: "audio/wav",
        duration: 25,
        uploaded_at: new Date(),
        raw_key: "raw",
        processed_key: null,
        status: "transcribing",
        error: null,
        current_job_id: jobId,
        settings: json({ ...settings, timestampGranularities: [...settings.timestampGranularities] }),
        result_id: null,
        deleted_at: null,
      })
      .execute();
    await insertJob(trx, { id: jobId, transcriptionId: id, userId, settings: { ...settings, timestampGranularities: [...settings.timestampGranularities] }, engineModel: "base", maxAttempts: 1 });
    const result = { text: segments.map((s) => s.text).join(" "), language: options.language ?? "en", sourceLanguage: "en", duration: 25, segments, dropped: [], engine: { name: "local", model: "base" }, ...(options.speakers ? { speakers: options.speakers } : {}) };
    await insertResult(trx, resultId, id, jobId, result);
    if (!(await advanceTranscription(trx, id, jobId, "completed", { result_id: resultId, error: null }))) throw new Error("not completed");
    await startRevisions(trx, { transcriptionId: id, userId, resultId, language: result.language, segments });
  });
  return id;
}

