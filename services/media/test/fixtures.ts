import { execFile } from "node:child_process";
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { espeakNg, ffmpegPath, ffprobePath } from "../src/testing/tools.js";

const run = promisify(execFile);

export interface Fixture {
  /** What the person would drop. */
  fileName: string;
  contentType: string;
  path: string;
  size: number;
  /** Seconds of speech in it, measured on the source WAV. */
  speechSeconds: number;
}

export type AcceptedKind = "mp3" | "wav" | "m4a" | "flac" | "ogg" | "webm-audio" | "mp4-video" | "webm-video";

const SENTENCE = "Uploads are checked, stored and measured. The real duration is what counts.";

/** Speech from espeak-ng, the same seconds in every accepted container (ffmpeg). */
export async function makeSpeech(dir: string, text = SENTENCE): Promise<{ wav: string; seconds: number }> {
  const wav = path.join(dir, "speech.wav");
  await espeakNg(["-w", wav, text]);
  return { wav, seconds: await probeSeconds(wav) };
}

export async function makeAcceptedFixtures(dir: string): Promise<Record<AcceptedKind, Fixture>> {
  const speech = await makeSpeech(dir);
  const seconds = speech.seconds.toFixed(3);
  const video = ["-f", "lavfi", "-i", `testsrc=size=160x120:rate=10:duration=${seconds}`];
  const specs: Record<AcceptedKind, { name: string; type: string; args: string[] }> = {
    mp3: { name: "talk.mp3", type: "audio/mpeg", args: ["-i", speech.wav, "-c:a", "libmp3lame"] },
    wav: { name: "talk.wav", type: "audio/wav", args: ["-i", speech.wav, "-ar", "44100", "-ac", "2"] },
    m4a: { name: "talk.m4a", type: "audio/x-m4a", args: ["-i", speech.wav, "-c:a", "aac"] },
    flac: { name: "talk.flac", type: "audio/flac", args: ["-i", speech.wav, "-c:a", "flac"] },
    ogg: { name: "talk.ogg", type: "audio/ogg", args: ["-i", speech.wav, "-c:a", "libvorbis"] },
    "webm-audio": { name: "talk-audio.webm", type: "audio/webm", args: ["-i", speech.wav, "-c:a", "libopus", "-f", "webm"] },
    "mp4-video": {
      name: "talk.mp4",
      type: "video/mp4",
      args: [...video, "-i", speech.wav, "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac", "-f", "mp4"],
    },
    "webm-video": {
      name: "talk-video.webm",
      type: "video/webm",
      args: [...video, "-i", speech.wav, "-c:v", "libvpx", "-c:a", "libopus", "-f", "webm"],
    },
  };
  const fixtures = {} as Record<AcceptedKind, Fixture>;
  for (const [kind, spec] of Object.entries(specs) as Array<[AcceptedKind, (typeof specs)[AcceptedKind]]>) {
    const file = path.join(dir, spec.name);
    await ffmpeg([...spec.args, file]);
    fixtures[kind] = { fileName: spec.name, contentType: spec.type, path: file, size: (await stat(file)).size, speechSeconds: speech.seconds };
  }
  return fixtures;
}

/** A video with no audio track at all. */
export async function makeSilentVideo(dir: string): Promise<Fixture> {
  const file = path.join(dir, "no-audio.mp4");
  await ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=2", "-c:v", "libx264", "-pix_fmt", "yuv420p", file]);
  return { fileName: "screen.mp4", contentType: "video/mp4", path: file, size: (await stat(file)).size, speechSeconds: 0 };
}

/** The first `fraction` of a file's bytes, as an interrupted copy leaves it. */
export async function truncate(source: Fixture, dir: string, fraction: number): Promise<Fixture> {
  const bytes = await readFile(source.path);
  const file = path.join(dir, `truncated-${path.basename(source.path)}`);
  const cut = bytes.subarray(0, Math.floor(bytes.length * fraction));
  await writeFile(file, cut);
  return { ...source, path: file, size: cut.length };
}

/** Longer speech, for chunking. */
export async function makeLongSpeech(dir: string, repeat: number): Promise<Fixture> {
  const speech = await makeSpeech(dir, Array.from({ length: repeat }, () => SENTENCE).join(" "));
  const file = path.join(dir, "long.mp3");
  await ffmpeg(["-i", speech.wav, "-c:a", "libmp3lame", file]);
  return { fileName: "lecture.mp3", contentType: "audio/mpeg", path: file, size: (await stat(file)).size, speechSeconds: speech.seconds };
}

export async function probeSeconds(file: string): Promise<number> {
  const { stdout } = await run(ffprobePath, ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file]);
  return Number(stdout.trim());
}

async function ffmpeg(args: string[]): Promise<void> {
  await run(ffmpegPath, ["-nostdin", "-v", "error", "-y", ...args]);
}
