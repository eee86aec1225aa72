import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { espeakNg, ffmpegPath } from "@transcribe/media/testing/tools";

const run = promisify(execFile);

/** Short sentences: 2-4 s of espeak-ng speech each, so tiny.en finishes a job in seconds. */
export const SENTENCES = [
  "Please call me back this afternoon.",
  "The train leaves at nine tomorrow.",
  "We moved the meeting to Friday morning.",
  "The results look better than last year.",
  "Send the report before the end of the day.",
  "The garden needs water after this heat.",
  "Our team finished the project on time.",
  "Turn left at the second traffic light.",
  "The library opens again next Monday.",
  "Remember to bring your umbrella today.",
];

export interface Clip {
  text: string;
  fileName: string;
  contentType: "audio/mpeg";
  bytes: Uint8Array;
}

/** One mp3 per sentence, as a person would upload it. */
export async function makeClips(dir: string): Promise<Clip[]> {
  return Promise.all(
    SENTENCES.map(async (text, index) => {
      const wav = path.join(dir, `clip-${index}.wav`);
      const mp3 = path.join(dir, `clip-${index}.mp3`);
      await espeakNg(["-v", "en-us", "-s", "150", "-w", wav, text]);
      await run(ffmpegPath, ["-nostdin", "-v", "error", "-y", "-i", wav, "-c:a", "libmp3lame", "-b:a", "48k", mp3]);
      return { text, fileName: `clip-${index}.mp3`, contentType: "audio/mpeg" as const, bytes: new Uint8Array(await readFile(mp3)) };
    }),
  );
}
