/**
 * A transcript as the public API's JSON `result` (docs/api.md, the BFF's OpenAPI
 * `TranscriptionResult`): built here once for both places that make it. The BFF builds it from
 * the transcription service's message; the transcription service builds it straight from the
 * rows it read for Transcription.result_json (decision 0027, one JSON.stringify instead of a
 * protobuf round trip). Both hand the same camelCase fields, so one function serves.
 */
export interface ResultSource {
  id: string;
  text: string;
  language: string;
  duration: number;
  revision: number;
  segments: ReadonlyArray<{
    id: number;
    start: number;
    end: number;
    text: string;
    speaker?: string | undefined;
    words: ReadonlyArray<{ word: string; start: number; end: number; probability?: number | null | undefined; speaker?: string | undefined }>;
  }>;
  speakers: ReadonlyArray<{ id: string; name: string; voiceId?: string | undefined; confidence?: number | undefined }>;
  speakersNote?: string | null | undefined;
  speakerTurns: ReadonlyArray<{ start: number; end: number; speaker: string }>;
}

/** A speaker; voice_id and confidence only where the voice library set them (decision 0031). */
export function speakerJson(sp: ResultSource["speakers"][number]) {
  return { id: sp.id, name: sp.name, ...(sp.voiceId ? { voice_id: sp.voiceId } : {}), ...(sp.confidence !== undefined ? { confidence: sp.confidence } : {}) };
}

/** Words only when the job asked for word timestamps (WORD granularity). */
export function resultJson(r: ResultSource, withWords: boolean) {
  return {
    id: r.id,
    text: r.text,
    language: r.language,
    duration: r.duration,
    revision: r.revision,
    segments: r.segments.map((s) => ({
      id: s.id,
      start: s.start,
      end: s.end,
      text: s.text,
      ...(s.speaker ? { speaker: s.speaker } : {}),
      ...(withWords
        ? {
            words: s.words.map((w) => ({
              word: w.word.trim(),
              start: w.start,
              end: w.end,
              ...(w.probability !== undefined && w.probability !== null ? { probability: w.probability } : {}),
              ...(w.speaker ? { speaker: w.speaker } : {}),
            })),
          }
        : {}),
    })),
    speakers: r.speakers.map(speakerJson),
    ...(r.speakersNote ? { speakers_note: r.speakersNote } : {}),
    speaker_turns: r.speakerTurns.map((t) => ({ start: t.start, end: t.end, speaker: t.speaker })),
  };
}
