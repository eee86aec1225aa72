import type { Transcript } from "./transcript.js";

/** The JSON export's shape: snake_case like the product API, times in seconds. */
export interface TranscriptJson {
  id: string;
  title: string;
  source_file_name: string | null;
  language: string | null;
  model: string | null;
  /** ISO 8601. */
  created_at: string | null;
  duration: number;
  text: string;
  segments: Array<{
    id: number;
    start: number;
    end: number;
    text: string;
    words: Array<{ word: string; start: number; end: number; probability?: number; speaker?: string }>;
    speaker?: string;
  }>;
  /** Speakers with the names the user gave them; the segments' and words' speaker is the name. */
  speakers: Array<{ id: string; name: string }>;
}

export function toTranscriptJson(transcript: Transcript): TranscriptJson {
  return {
    id: transcript.id,
    title: transcript.title,
    source_file_name: transcript.sourceFileName ?? null,
    language: transcript.language ?? null,
    model: transcript.model ?? null,
    created_at: transcript.createdAt?.toISOString() ?? null,
    duration: transcript.duration,
    text: transcript.text,
    speakers: transcript.speakers ?? [],
    segments: transcript.segments.map((segment) => ({
      id: segment.id,
      start: segment.start,
      end: segment.end,
      text: segment.text,
      words: segment.words.map((word) => ({
        word: word.word,
        start: word.start,
        end: word.end,
        ...(word.probability !== undefined ? { probability: word.probability } : {}),
        ...(word.speaker ? { speaker: word.speaker } : {}),
      })),
      ...(segment.speaker ? { speaker: segment.speaker } : {}),
    })),
  };
}

/**
 * Indented for people, except that each word is one line: a two-hour transcript has
 * some 20,000 words and a fully indented file would be mostly whitespace. Parses to
 * exactly toTranscriptJson(transcript).
 */
export function renderJson(transcript: Transcript): string {
  const { segments, ...metadata } = toTranscriptJson(transcript);
  const out: string[] = ["{"];
  for (const [key, value] of Object.entries(metadata)) out.push(`  ${JSON.stringify(key)}: ${JSON.stringify(value)},`);
  out.push(segments.length === 0 ? '  "segments": []' : '  "segments": [');
  segments.forEach((segment, index) => {
    const { words, ...fields } = segment;
    out.push("    {");
    for (const [key, value] of Object.entries(fields)) out.push(`      ${JSON.stringify(key)}: ${JSON.stringify(value)},`);
    if (words.length === 0) out.push('      "words": []');
    else {
      out.push('      "words": [');
      words.forEach((word, w) => out.push(`        ${JSON.stringify(word)}${w < words.length - 1 ? "," : ""}`));
      out.push("      ]");
    }
    out.push(index < segments.length - 1 ? "    }," : "    }");
  });
  if (segments.length > 0) out.push("  ]");
  out.push("}");
  return `${out.join("\n")}\n`;
}
