import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { espeakNgSync, ffmpegPath } from "@transcribe/media/testing/tools";
import { wavSeconds } from "@transcribe/media/testing/voices";

/*
 * English speech with a known script, made with espeak-ng: the script is the reference
 * the transcripts' word error rate is measured against. Twelve sentences over four
 * voices and speeds, repeated until the requested length, as one 16 kHz mono 16-bit
 * WAV (the format media hands the engine).
 */

export const SENTENCES = [
  "The committee met on Tuesday morning to review the budget for the new library.",
  "Several members asked whether the building could open before the end of the summer.",
  "The architect explained that the roof would take another six weeks to finish.",
  "Fresh bread was sold at the market every Saturday, and people queued early to buy it.",
  "The baker started work at four in the morning, long before the streets were awake.",
  "Please remember to switch off the lights when you leave the office tonight.",
  "Our electricity bill doubled last winter, and the manager wants everyone to help.",
  "The river rose quickly after three days of heavy rain in the mountains.",
  "Farmers moved their animals to higher ground before the water reached the fields.",
  "A small boat carried letters and medicine to the island twice a week.",
  "The museum opened a new room for paintings by artists from the northern coast.",
  "Children learned to plant tomatoes and beans in the school garden this spring.",
];
const VOICES = ["en-us", "en-gb", "en-us+f3", "en-gb-x-rp"];

export interface Speech {
  /** 16 kHz mono s16le WAV. */
  file: string;
  seconds: number;
  /** What was said, sentence after sentence. */
  script: string;
}

/** Bumped when the synthesis changes, so cached files are not reused across versions. */
const VERSION = 1;
const cacheDir = path.join(tmpdir(), "transcribe-bench-speech");

/**
 * At least `seconds` of speech (whole sentences). Cached in the temp directory: the
 * same length gives the same file, so every benchmark of a run hears the same audio.
 */
export function speech(seconds: number): Speech {
  mkdirSync(cacheDir, { recursive: true });
  const base = path.join(cacheDir, `v${VERSION}-${seconds}s`);
  const file = `${base}.wav`;
  const scriptFile = `${base}.txt`;
  if (existsSync(file) && existsSync(scriptFile)) {
    return { file, seconds: wavSeconds(file), script: readFileSync(scriptFile, "utf8") };
  }
  const clips = SENTENCES.map((sentence, i) => {
    const clip = path.join(cacheDir, `v${VERSION}-sentence-${i}.wav`);
    if (!existsSync(clip)) {
      const raw = `${clip}.raw.wav`;
      // Sentence i is always spoken by voice i mod 4 at its speed: 12 distinct clips.
      espeakNgSync(["-v", VOICES[i % VOICES.length]!, "-s", String(150 + (i % 4) * 10), "-w", raw, sentence]);
      execFileSync(ffmpegPath, ["-nostdin", "-v", "error", "-y", "-i", raw, "-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", clip]);
    }
    return { clip, seconds: wavSeconds(clip), sentence };
  });
  const order: typeof clips = [];
  let total = 0;
  for (let i = 0; total < seconds; i++) {
    const next = clips[i % clips.length]!;
    order.push(next);
    total += next.seconds;
  }
  const list = `${base}.list`;
  writeFileSync(list, order.map((c) => `file '${c.clip}'`).join("\n"));
  const partial = `${base}.partial.wav`;
  execFileSync(ffmpegPath, ["-nostdin", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", list, "-c", "copy", partial]);
  writeFileSync(scriptFile, order.map((c) => c.sentence).join(" "));
  renameSync(partial, file);
  return { file, seconds: wavSeconds(file), script: readFileSync(scriptFile, "utf8") };
}
