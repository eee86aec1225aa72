import type { Speaker } from "./speakers.js";
import type { Segment } from "./transcriber.js";

/**
 * Voice-library rules (decision 0031), pure. A voice is a unit-norm speaker embedding
 * (the diarizer's mean over a speaker's windows); two voices are compared by cosine
 * similarity.
 */

/**
 * Cosine similarity at or above which a speaker is taken to be a saved voice. Measured on
 * the AMI excerpts cut in halves (bench/voices/threshold.py, numbers in decision 0031).
 */
export const VOICE_MATCH_THRESHOLD = 0.85;

export const EMBEDDING_SIZE = 256;

export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

export function unit(v: readonly number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? v.map((x) => x / norm) : [...v];
}

/** A usable embedding: 256 finite numbers, not all zero. */
export function isEmbedding(v: unknown): v is number[] {
  return Array.isArray(v) && v.length === EMBEDDING_SIZE && v.every((x) => typeof x === "number" && Number.isFinite(x)) && v.some((x) => x !== 0);
}

/**
 * The confidence shown for a match: the similarity mapped onto 0–1 so that the threshold
 * reads 0.5 and an identical voice 1 (below the threshold there is no match).
 */
export function matchConfidence(similarity: number, threshold = VOICE_MATCH_THRESHOLD): number {
  const c = 0.5 + (0.5 * (similarity - threshold)) / (1 - threshold);
  return Math.round(Math.min(1, Math.max(0, c)) * 1000) / 1000;
}

/** A saved voice strengthened by one more recording: the running mean, back to unit norm. */
export function strengthen(voice: readonly number[], samples: number, added: readonly number[]): number[] {
  const a = unit(added);
  return unit(voice.map((x, i) => (x * samples + a[i]!) / (samples + 1)));
}

export interface SavedVoice {
  id: string;
  name: string;
  embedding: readonly number[];
}

export interface VoiceMatch {
  voiceId: string;
  name: string;
  confidence: number;
}

/**
 * Which saved voice each speaker is: one voice per speaker and one speaker per voice, so
 * two speakers of a recording never get the same name. Greedy on similarity (the most
 * alike pair first), which for the handful of speakers and voices at hand is what an
 * optimal assignment gives whenever the matches are clear; pairs under the threshold are
 * never matched.
 */
export function matchVoices(
  speakers: ReadonlyArray<{ id: string; embedding: readonly number[] }>,
  voices: readonly SavedVoice[],
  threshold = VOICE_MATCH_THRESHOLD,
): Map<string, VoiceMatch> {
  const pairs: Array<{ speaker: string; voice: SavedVoice; similarity: number }> = [];
  for (const s of speakers) {
    for (const v of voices) {
      const similarity = cosine(s.embedding, v.embedding);
      if (similarity >= threshold) pairs.push({ speaker: s.id, voice: v, similarity });
    }
  }
  pairs.sort((a, b) => b.similarity - a.similarity);
  const out = new Map<string, VoiceMatch>();
  const taken = new Set<string>();
  for (const p of pairs) {
    if (out.has(p.speaker) || taken.has(p.voice.id)) continue;
    out.set(p.speaker, { voiceId: p.voice.id, name: p.voice.name, confidence: matchConfidence(p.similarity, threshold) });
    taken.add(p.voice.id);
  }
  return out;
}

/** The speakers of a fresh result, named after the voices they matched. */
export function nameMatchedSpeakers(speakers: readonly Speaker[], matches: ReadonlyMap<string, VoiceMatch>): Speaker[] {
  return speakers.map((s) => {
    const m = matches.get(s.id);
    return m ? { id: s.id, name: m.name, voiceId: m.voiceId, confidence: m.confidence } : s;
  });
}

/** The diarizer's per-speaker embeddings under the transcript's speaker ids (after renumbering). */
export function embeddingsById(renamed: ReadonlyMap<string, string>, embeddings: Readonly<Record<string, unknown>> | undefined): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [raw, id] of renamed) {
    const v = embeddings?.[raw];
    if (isEmbedding(v)) out[id] = unit(v);
  }
  return out;
}

/**
 * A freshly diarized transcript's speakers with the diarizer's embeddings under their
 * final ids (the renumbering moves them), ready for the voice library.
 */
export function withVoices<T extends { segments: Segment[]; speakers: Speaker[]; renamed: ReadonlyMap<string, string> }>(
  joined: T,
  embeddings: Readonly<Record<string, unknown>> | undefined,
): Omit<T, "renamed"> & { speakerEmbeddings: Record<string, number[]> } {
  const { renamed, ...rest } = joined;
  return { ...rest, speakerEmbeddings: embeddingsById(renamed, embeddings) };
}
