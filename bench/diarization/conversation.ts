import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ffmpegPath } from "@transcribe/media/testing/tools";
import { joinWavs, silenceWav, voicedSpeech, wavSeconds } from "@transcribe/media/testing/voices";
import type { Turn } from "./der.js";

/**
 * Two clearly different synthetic voices taking turns, with the exact turn list: espeak-ng's
 * en-us voice pitched down (a low male voice) and its female variant pitched up.
 * Each utterance is trimmed of espeak's own silence, so the reference turns are the speech.
 */
export const VOICES = {
  A: { voice: "en-us", speed: 160, pitchCents: -300 },
  B: { voice: "en-us+f4", speed: 175, pitchCents: 200 },
} as const;

export const DIALOGUE: Array<[keyof typeof VOICES, string]> = [
  ["A", "Good morning everyone, thanks for joining the weekly planning meeting today."],
  ["B", "Thanks. Before we start, can you tell me whether the customer reports are ready?"],
  ["A", "We finished the migration of the billing database last Thursday without any downtime."],
  ["B", "That is great news. Did anyone notice the slower queries on the dashboard afterwards?"],
  ["A", "Next we should look at the export service, which still renders large files slowly."],
  ["B", "Right, the portable document format path takes almost a minute on long meetings."],
  ["A", "I agree, and I will write the benchmark for the two hour transcript this afternoon."],
  ["B", "Perfect. Let us meet again on Monday and compare the numbers with last month."],
];

function utterance(dir: string, index: number, speaker: keyof typeof VOICES, text: string): string {
  const v = VOICES[speaker];
  return voicedSpeech({ ffmpeg: ffmpegPath, voice: v.voice, speed: v.speed, cents: v.pitchCents, text, raw: path.join(dir, `u${index}-raw.wav`), out: path.join(dir, `u${index}.wav`), trim: true });
}

/**
 * Builds the conversation: `lines` (default DIALOGUE), `gap` seconds of silence between turns,
 * optionally `leadSilence` seconds before the first. Returns the WAV and its reference turns.
 */
export function buildConversation(options: { lines?: Array<[keyof typeof VOICES, string]>; gap?: number; leadSilence?: number; dir?: string } = {}) {
  const dir = options.dir ?? mkdtempSync(path.join(tmpdir(), "diarization-"));
  const lines = options.lines ?? DIALOGUE;
  const gap = options.gap ?? 0.6;
  const silence = silenceWav(path.join(dir, "gap.wav"), gap);
  const parts: string[] = [];
  const turns: Turn[] = [];
  let t = 0;
  if (options.leadSilence) {
    const lead = silenceWav(path.join(dir, "lead.wav"), options.leadSilence);
    parts.push(lead);
    t += wavSeconds(lead);
  }
  lines.forEach(([speaker, text], i) => {
    const file = utterance(dir, i, speaker, text);
    const d = wavSeconds(file);
    turns.push({ start: t, end: t + d, speaker });
    parts.push(file, silence);
    t += d + gap;
  });
  const out = joinWavs(parts, path.join(dir, "conversation.wav"));
  return { path: out, duration: wavSeconds(out), turns, text: lines.map(([, text]) => text).join(" "), dir };
}

/** A WAV of silence (no speech at all). */
export function buildSilence(secondsLong: number, dir = mkdtempSync(path.join(tmpdir(), "diarization-"))): string {
  return silenceWav(path.join(dir, "silence.wav"), secondsLong);
}

export function rttmOf(turns: readonly Turn[], name: string): string {
  return `${turns.map((t) => `SPEAKER ${name} 1 ${t.start.toFixed(3)} ${(t.end - t.start).toFixed(3)} <NA> <NA> ${t.speaker} <NA> <NA>`).join("\n")}\n`;
}

export const readText = (file: string) => readFileSync(file, "utf8");
