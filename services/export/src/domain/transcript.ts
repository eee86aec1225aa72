/**
 * The transcript as the renderers see it: everything an export shows, already taken out
 * of the transcription service's protobuf messages (see ../transcripts.ts) so the
 * renderers stay pure functions of plain data.
 */
export interface TranscriptWord {
  word: string;
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  /** 0 to 1, when the provider reported it. */
  probability?: number;
  /** The speaker's name (as the user named them), when speakers were identified. */
  speaker?: string;
}

export interface TranscriptSegment {
  /** Position in the transcript, from 0. */
  id: number;
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  text: string;
  /** Empty unless the transcript was made with word timestamps. */
  words: TranscriptWord[];
  /** The speaker's name (as the user named them), when speakers were identified. */
  speaker?: string;
}

export interface Transcript {
  id: string;
  /** The display name: the document title and the download's file name. */
  title: string;
  /** The uploaded file's name. */
  sourceFileName?: string;
  /** Language code of the text (e.g. "en", "zh"). */
  language?: string;
  /** Speech model id (e.g. "whisper-large-v3-turbo"). */
  model?: string;
  createdAt?: Date;
  /** Seconds of audio. */
  duration: number;
  /** The whole text; used when there are no segments. */
  text: string;
  /** In time order. */
  segments: TranscriptSegment[];
  /** Speakers by id with their current names; empty without speakers. */
  speakers?: Array<{ id: string; name: string }>;
  /** Who spoke when, as the diarizer heard it; `speaker` is the name. Empty without speakers. */
  speakerTurns?: Array<{ start: number; end: number; speaker: string }>;
  /** The transcript revision rendered (1 is the engine's result); recorded with the export. */
  revision?: number;
}

/** Options the text-like formats share (txt, docx, pdf). */
export interface RenderOptions {
  /** Prefix each segment with its start time, `[hh:mm:ss]`. */
  includeTimestamps?: boolean;
}

/**
 * The segments' texts with runs of whitespace (line breaks included) folded to one space,
 * so one segment is always one line or paragraph, and blank segments dropped. A
 * transcript without segments is its whole text as one segment.
 */
export function paragraphsOf(transcript: Transcript): Paragraph[] {
  const paragraphs: Paragraph[] = transcript.segments
    .map((segment) => {
      const speaker = speakerLabel(segment.speaker);
      return { start: segment.start, text: normalizeSpace(segment.text), ...(speaker ? { speaker } : {}) };
    })
    .filter((paragraph) => paragraph.text.length > 0);
  // A turn starts where the voice changes: the speaker's name is shown there (txt, docx, pdf).
  paragraphs.forEach((p, i) => {
    if (p.speaker && p.speaker !== paragraphs[i - 1]?.speaker) p.turn = p.speaker;
  });
  if (paragraphs.length > 0 || transcript.segments.length > 0) return paragraphs;
  const text = normalizeSpace(transcript.text);
  return text ? [{ start: 0, text }] : [];
}

export interface Paragraph {
  start: number;
  text: string;
  speaker?: string;
  /** The speaker's name when this paragraph starts a turn. */
  turn?: string;
}

export function normalizeSpace(text: string): string {
  return text.replace(/\s+/gu, " ").trim();
}

// Bidi embedding, override and isolate controls: they reorder what follows them on screen.
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/gu;
// Whitespace (line breaks, tabs, U+2028/U+2029 included) and control characters (C0, DEL, C1).
const SPACE_OR_CONTROL = /[\s\p{Cc}]+/gu;

/**
 * A speaker's name as every export shows it (txt, docx, pdf, srt, vtt, rttm): bidi controls
 * removed, each run of whitespace or control characters folded to one space, trimmed. The
 * API refuses such names, but one stored before that rule (or a label nobody checked) must
 * still never break a line-based format: a line break in a name would end a subtitle cue or
 * start a line of its own. Empty when nothing printable is left (the name is then not shown).
 */
export function speakerLabel(name: string | undefined): string {
  return name ? name.replace(BIDI_CONTROLS, "").replace(SPACE_OR_CONTROL, " ").trim() : "";
}
