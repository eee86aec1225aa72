import type { Kysely } from "kysely";
import type { TranscriptionDB } from "@transcribe/transcription/db/schema";
import { completedTranscription } from "../../services/transcription/test/completed.js";
import { syntheticTranscript } from "../exports/transcript.js";

/**
 * A long completed transcript stored the way the worker stores a result (result rows,
 * revision 1, search rows), shaped like Whisper's output: the export benchmark's
 * synthetic transcript (segments of 6 to 20 timed words, pauses between them).
 */
export async function completedTranscriptionIn(db: Kysely<TranscriptionDB>, userId: string, size: { segments: number; words: number; seconds: number }): Promise<string> {
  const transcript = syntheticTranscript({ segments: size.segments, words: size.words, durationSeconds: size.seconds, seed: 19 });
  return completedTranscription(db, userId, {
    name: "Two-hour recording",
    segments: transcript.segments.map((s) => ({ start: s.start, end: s.end, text: s.text, words: s.words.map((w) => ({ ...w })) })),
  });
}
