import { AppError } from "@transcribe/platform";
import type { Segment, Word } from "./transcriber.js";

/** A stretch of one voice, as the diarizer (or a provider) reports it. */
export interface SpeakerTurn {
  start: number;
  end: number;
  /** A stable id: S1, S2… in order of first appearance. */
  speaker: string;
}

export interface Speaker {
  id: string;
  name: string;
  /** The voice-library voice this speaker was recognised as or saved to (decision 0031). */
  voiceId?: string;
  /** Set while the name is a voice-library match: 0 to 1. */
  confidence?: number;
}

export const MAX_SPEAKER_NAME_LENGTH = 80;
export const MAX_SPEAKERS = 20;
export const speakerIdPattern = /^S[1-9][0-9]?$/;

const invalid = (message: string, field: string) => new AppError("invalid_argument", message, { field });

/** Speaker-count settings: whole numbers 1–20, min ≤ max. */
export function validateSpeakerCounts(min: number | undefined, max: number | undefined): { minSpeakers?: number; maxSpeakers?: number } {
  for (const [value, field] of [
    [min, "min_speakers"],
    [max, "max_speakers"],
  ] as const) {
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1 || value > MAX_SPEAKERS) {
      throw invalid(`${field === "min_speakers" ? "Minimum" : "Maximum"} number of speakers must be a whole number from 1 to ${MAX_SPEAKERS}`, field);
    }
  }
  if (min !== undefined && max !== undefined && min > max) {
    throw invalid("Minimum number of speakers cannot be more than the maximum", "min_speakers");
  }
  return { ...(min !== undefined ? { minSpeakers: min } : {}), ...(max !== undefined ? { maxSpeakers: max } : {}) };
}

/**
 * What a name or a speaker label may not hold: C0 controls (tab, line feed, carriage
 * return…), DEL, C1 controls (NEL…), the line and paragraph separators, and the bidi
 * embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069). Each one either
 * starts a new line in an export (a blank line ends a subtitle cue, so a name could inject
 * cues) or makes text read other than it is stored ("txt.exe" shown as "exe.txt"). The
 * direction marks LRM, RLM and ALM stay allowed: right-to-left names may need them.
 */
export const FORBIDDEN_NAME_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/**
 * The one rule for every name and speaker label a user gives (speaker names, voice names,
 * segment speaker labels): 400 `<subject> cannot contain line breaks, tabs or control
 * characters`, with the field and the first such character (`U+000A`) in the detail.
 */
export function refuseControlCharacters(value: string, subject: string, field: string): void {
  const found = FORBIDDEN_NAME_CHARACTER.exec(value);
  if (!found) return;
  const character = `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  throw new AppError("invalid_argument", `${subject} cannot contain line breaks, tabs or control characters`, { field, character });
}

/** Rename rule (speakers and saved voices): trimmed, 1 to 80 characters, no control or bidi-control characters. */
export function validateSpeakerName(raw: string): string {
  const name = raw.trim();
  if (!name) throw invalid("Speaker name cannot be empty", "name");
  if ([...name].length > MAX_SPEAKER_NAME_LENGTH) throw invalid(`Speaker name is too long (max ${MAX_SPEAKER_NAME_LENGTH} characters)`, "name");
  refuseControlCharacters(name, "Speaker name", "name");
  return name;
}

function overlap(aStart: number, aEnd: number, bStart: number, bEnd: number): number {
  return Math.max(0, Math.min(aEnd, bEnd) - Math.max(aStart, bStart));
}

/** The turn a moment belongs to: the most overlapping one, else the nearest within 1 s. */
function speakerAt(turns: readonly SpeakerTurn[], start: number, end: number): string | undefined {
  let best: string | undefined;
  let bestOverlap = 0;
  let nearest: string | undefined;
  let nearestGap = 1;
  for (const t of turns) {
    const o = overlap(start, end, t.start, t.end);
    if (o > bestOverlap) {
      bestOverlap = o;
      best = t.speaker;
    }
    // A zero-length word inside a turn overlaps it by 0 s: its gap is 0, so it still takes that turn.
    const gap = Math.max(0, t.start - end, start - t.end);
    if (gap < nearestGap) {
      nearestGap = gap;
      nearest = t.speaker;
    }
  }
  return best ?? nearest;
}

function majority(words: readonly Word[]): string | undefined {
  const time = new Map<string, number>();
  for (const w of words) if (w.speaker) time.set(w.speaker, (time.get(w.speaker) ?? 0) + Math.max(0.01, w.end - w.start));
  return [...time.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/**
 * Joins speaker turns to a transcript by time: every word takes the turn it overlaps
 * most, a segment in which the voice changes is split at that word (Whisper's segments
 * follow pauses, not voices), and a segment without words takes its own overlap.
 * Speaker ids are renumbered S1, S2… in order of first appearance in the transcript.
 */
export function assignSpeakers(segments: readonly Segment[], turns: readonly SpeakerTurn[]): Renumbered {
  const out: Segment[] = [];
  for (const segment of segments) {
    if (!segment.words.length) {
      const speaker = speakerAt(turns, segment.start, segment.end);
      out.push({ ...segment, ...(speaker ? { speaker } : {}) });
      continue;
    }
    const words = segment.words.map((w) => {
      const speaker = speakerAt(turns, w.start, w.end);
      return speaker ? { ...w, speaker } : { ...w };
    });
    // Words with no turn near them follow their neighbours.
    for (let i = 0; i < words.length; i++) if (!words[i]!.speaker) {
      const near = words.slice(0, i).reverse().find((w) => w.speaker) ?? words.slice(i + 1).find((w) => w.speaker);
      if (near?.speaker) words[i]!.speaker = near.speaker;
    }
    let run: Word[] = [];
    const flush = (whole: boolean) => {
      if (!run.length) return;
      const speaker = run[0]!.speaker;
      out.push({
        ...segment,
        start: whole ? segment.start : run[0]!.start,
        end: whole ? segment.end : run[run.length - 1]!.end,
        text: whole ? segment.text : joinWords(run),
        words: run,
        ...(speaker ? { speaker } : {}),
      });
      run = [];
    };
    const changes = words.some((w, i) => i > 0 && w.speaker !== words[i - 1]!.speaker);
    for (let i = 0; i < words.length; i++) {
      if (i > 0 && words[i]!.speaker !== words[i - 1]!.speaker) flush(false);
      run.push(words[i]!);
    }
    flush(!changes);
  }
  return renumber(out, turns);
}

function joinWords(words: readonly Word[]): string {
  // Whisper's words carry their leading space; others' do not.
  const spaced = words.slice(1).every((w) => /^\s/.test(w.word));
  return spaced ? words.map((w) => w.word).join("") : words.map((w) => w.word.trim()).join(" ");
}

/** A transcript's speakers after renumbering; `renamed` maps each incoming id to its new one. */
export interface Renumbered {
  segments: Segment[];
  speakers: Speaker[];
  speakerTurns: SpeakerTurn[];
  renamed: Map<string, string>;
}

/**
 * S1, S2… by first appearance in the transcript; the names start as the ids. The turns
 * keep the diarizer's own times (speech between words included) under the new ids; a
 * voice heard only where no word was written comes after the others, so every turn has a
 * speaker that can be named.
 */
export function renumber(segments: readonly Segment[], turns: readonly SpeakerTurn[] = []): Renumbered {
  const ids = new Map<string, string>();
  const idOf = (raw: string) => {
    let id = ids.get(raw);
    if (!id) {
      id = `S${ids.size + 1}`;
      ids.set(raw, id);
    }
    return id;
  };
  const out = segments.map((s) => {
    const speaker = s.speaker ?? majority(s.words);
    const words = s.words.map((w) => (w.speaker ? { ...w, speaker: idOf(w.speaker) } : w));
    return { ...s, words, ...(speaker ? { speaker: idOf(speaker) } : {}) };
  });
  const speakerTurns = turns.map((t) => ({ start: t.start, end: t.end, speaker: idOf(t.speaker) }));
  return { segments: out, speakers: [...ids.values()].map((id) => ({ id, name: id })), speakerTurns, renamed: ids };
}

/** Strips speakers from a transcript (diarization off, or redone from scratch). */
export function withoutSpeakers(segments: readonly Segment[]): Segment[] {
  return segments.map(({ speaker: _s, ...rest }) => ({ ...rest, words: rest.words.map(({ speaker: _w, ...w }) => w) }));
}

/**
 * Speaker turns from words that carry a provider's speaker (ElevenLabs): one turn per run
 * of words by one voice, a pause under 0.5 s kept inside the turn (as the diarizer does).
 */
export function turnsFromWords(words: ReadonlyArray<{ start: number; end: number; speaker?: string | undefined }>): SpeakerTurn[] {
  const turns: SpeakerTurn[] = [];
  for (const w of words) {
    if (!w.speaker) continue;
    const last = turns.at(-1);
    if (last && last.speaker === w.speaker && w.start - last.end < 0.5) last.end = Math.max(last.end, w.end);
    else turns.push({ start: w.start, end: w.end, speaker: w.speaker });
  }
  return turns;
}
