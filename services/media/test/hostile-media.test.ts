import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { FileStatus, type File } from "@transcribe/proto/media/v1/media";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messages } from "../src/domain/rules.js";
import { ffmpegPath } from "../src/testing/tools.js";
import { makeSpeech, truncate, type Fixture } from "./fixtures.js";
import { objectsLeft, waitFor } from "./harness.js";
import {
  flacBomb,
  flacDeclaringDays,
  magicThenGarbage,
  mp4DeclaringDays,
  mp4WithManyTracks,
  randomNoise,
  wavDeclaringDays,
  wavWithoutSamples,
  webmWithEmptyAudioTrack,
  webmWithoutAudio,
} from "./hostile-fixtures.js";
import { startMediaProcess, type MediaProcess } from "./media-process.js";

const run = promisify(execFile);
const USER = "user_hostile";
/** Low enough that a decode cut at the limit stays small on disk (601 s × 32 kB/s ≈ 19 MB). */
const MAX_SECONDS = 600;
const PROCESSED_BYTES_PER_SECOND = 32_000;
const TOO_LONG = "Audio longer than 10 minutes is not supported";

let media: MediaProcess;
let dir: string;
let speech: { wav: string; seconds: number };
let startPid: number;
const outcomes: Array<{ case: string; bytes: number; status: string; message: string; peakWorkMb: number }> = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "hostile-media-"));
  [media, speech] = await Promise.all([
    startMediaProcess({ MEDIA_MAX_DURATION_SECONDS: String(MAX_SECONDS) }),
    makeSpeech(dir),
  ]);
  startPid = media.child.pid!;
}, 120_000);

afterAll(async () => {
  if (outcomes.length > 0) {
    console.log("[hostile media] what media did with each file:");
    console.table(outcomes);
  }
  await media?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Bytes under the worker's scratch directory, sampled every 25 ms while a file is processed. */
function watchWorkDir(workDir: string) {
  let peak = 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      let total = 0;
      try {
        for (const entry of await readdir(workDir, { recursive: true, withFileTypes: true })) {
          if (entry.isFile()) total += await stat(path.join(entry.parentPath, entry.name)).then((s) => s.size, () => 0);
        }
      } catch {
        // the directory is created with the first job
      }
      peak = Math.max(peak, total);
      await new Promise((r) => setTimeout(r, 25));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return peak;
    },
  };
}

/** Uploads the file as a browser would (signed PUT) and waits until media has judged it. */
async function submit(name: string, fixture: Fixture): Promise<{ file: File; peakWorkBytes: number }> {
  const watch = watchWorkDir(media.workDir);
  const upload = await media.client.createUpload({
    userId: USER,
    fileName: fixture.fileName,
    fileSize: BigInt(fixture.size),
    contentType: fixture.contentType,
    duration: 10,
  });
  const put = await fetch(upload.uploadUrl, {
    method: "PUT",
    body: await readFile(fixture.path),
    headers: { "content-type": fixture.contentType },
  });
  expect(put.status, await put.text()).toBe(200);
  let file: File;
  let peakWorkBytes = 0;
  try {
    file = await waitFor(async () => {
      const found = (await media.client.getFile({ userId: USER, fileId: upload.fileId })).file;
      return found && (found.status === FileStatus.READY || found.status === FileStatus.FAILED) ? found : undefined;
    }, `${name} to be judged`, 90_000);
  } finally {
    peakWorkBytes = await watch.stop();
  }
  outcomes.push({
    case: name,
    bytes: fixture.size,
    status: FileStatus[file.status],
    message: file.error ?? `duration ${file.duration.toFixed(2)} s`,
    peakWorkMb: Math.round((peakWorkBytes / 1e6) * 10) / 10,
  });
  expect(media.alive(), `media died on ${name}:\n${media.output().slice(-3000)}`).toBe(true);
  return { file, peakWorkBytes };
}

async function expectRefused(name: string, fixture: Fixture, message: string) {
  const result = await submit(name, fixture);
  expect(result.file.status).toBe(FileStatus.FAILED);
  expect(result.file.error).toBe(message);
  // A refused file leaves nothing in storage.
  expect(await objectsLeft(media.storageDir, result.file.id)).toEqual([]);
  return result;
}

async function ffmpeg(args: string[]): Promise<string> {
  const out = args[args.length - 1]!;
  await run(ffmpegPath, ["-nostdin", "-v", "error", "-y", ...args]);
  return out;
}

async function encoded(args: string[], name: string, fileName: string, contentType: string): Promise<Fixture> {
  const file = await ffmpeg([...args, path.join(dir, name)]);
  return { fileName, contentType, path: file, size: (await stat(file)).size, speechSeconds: speech.seconds };
}

describe("hostile media through the real media process", () => {
  it("refuses random bytes named and typed as audio: the magic number decides", async () => {
    await expectRefused("random bytes as .mp3", await randomNoise(dir), messages.notMedia);
  });

  it("refuses a right magic number followed by garbage as damaged", async () => {
    await expectRefused("fLaC + random bytes", await magicThenGarbage(dir), messages.damaged);
  });

  it("refuses truncated mp3, wav and mp4 as damaged", async () => {
    const mp3 = await encoded(["-i", speech.wav, "-c:a", "libmp3lame"], "talk.mp3", "talk.mp3", "audio/mpeg");
    const wav = await encoded(["-i", speech.wav, "-ar", "44100", "-ac", "2"], "talk.wav", "talk.wav", "audio/wav");
    const mp4 = await encoded(
      [
        "-f", "lavfi", "-i", `testsrc=size=160x120:rate=10:duration=${speech.seconds.toFixed(3)}`, "-i", speech.wav,
        "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", "aac",
      ],
      "talk.mp4",
      "talk.mp4",
      "video/mp4",
    );
    expect(messages.damaged).toBe("The file is damaged or incomplete");
    await expectRefused("truncated mp3 (50%)", await truncate(mp3, dir, 0.5), messages.damaged);
    // ffprobe measures a WAV by its size; the header's data length says half is missing.
    await expectRefused("truncated wav (50%)", await truncate(wav, dir, 0.5), messages.damaged);
    await expectRefused("truncated mp4 (70%)", await truncate(mp4, dir, 0.7), messages.damaged);
  });

  it("refuses headers that declare days before decoding anything, and ignores an mp4 movie header's lie", async () => {
    const wav = await expectRefused("wav declaring ~6 days", await wavDeclaringDays(dir, speech.wav), TOO_LONG);
    const flac = await expectRefused("flac declaring 3 days", await flacDeclaringDays(dir, speech.wav), TOO_LONG);
    for (const refused of [wav, flac]) expect(refused.peakWorkBytes).toBeLessThan(1_000_000);

    // The MP4's track (sample tables) holds 2 s; only the movie header says days. The real
    // duration is what gets recorded.
    const { file } = await submit("mp4 whose mvhd says 3 days", await mp4DeclaringDays(dir, speech.wav));
    expect(file.status).toBe(FileStatus.READY);
    expect(file.duration).toBeGreaterThan(speech.seconds - 0.15);
    expect(file.duration).toBeLessThan(speech.seconds + 0.15);
  });

  it("refuses a FLAC decompression bomb: by its header without decoding, or by decoding only up to the limit", async () => {
    // 3 h of silence: a few MB that would decode to 345 MB of 16 kHz audio.
    const honest = await flacBomb(dir, 3, false);
    const refused = await expectRefused("flac bomb, 3 h declared", honest, TOO_LONG);
    expect(refused.peakWorkBytes).toBeLessThan(honest.size + 1_000_000);

    // 2 h with its length hidden (sample count 0 = unknown): decoding is the only way to
    // know, and it stops one second past the limit instead of writing 230 MB.
    const hidden = await flacBomb(dir, 2, true);
    const cut = await expectRefused("flac bomb, 2 h, length hidden", hidden, TOO_LONG);
    const capped = (MAX_SECONDS + 1) * PROCESSED_BYTES_PER_SECOND + 44;
    expect(cut.peakWorkBytes).toBeLessThanOrEqual(hidden.size + capped);
    expect(cut.peakWorkBytes).toBeLessThan(2 * 3600 * PROCESSED_BYTES_PER_SECOND * 0.5);
  });

  it("refuses files with thousands of tiny streams, and takes a few tracks", async () => {
    const manyTracks = messages.tooManyStreams(32);
    expect(manyTracks).toBe("The file has too many tracks (at most 32 are supported)");
    await expectRefused("mp4 with 3,000 audio tracks", await mp4WithManyTracks(dir, 3_000), manyTracks);
    await expectRefused("mp4 with 100 audio tracks", await mp4WithManyTracks(dir, 100), manyTracks);
    const { file } = await submit("mp4 with 8 audio tracks", await mp4WithManyTracks(dir, 8));
    expect(file.status).toBe(FileStatus.READY);
    expect(file.duration).toBeGreaterThan(0.1);
  });

  it("refuses an audio stream without samples, and a video without audio", async () => {
    expect(messages.silentEmpty).toBe("The file contains no audio");
    await expectRefused("wav with a 0-byte data chunk", await wavWithoutSamples(dir, speech.wav), messages.silentEmpty);
    await expectRefused("webm with an empty opus track", await webmWithEmptyAudioTrack(dir), messages.silentEmpty);
    await expectRefused("webm video without audio", await webmWithoutAudio(dir), messages.noAudio);
  });

  it("is still the same process afterwards, with no file left half-processed, and takes the next upload", async () => {
    const mp3 = await encoded(["-i", speech.wav, "-c:a", "libmp3lame"], "after.mp3", "after.mp3", "audio/mpeg");
    const { file } = await submit("ordinary mp3 afterwards", mp3);
    expect(file.status).toBe(FileStatus.READY);
    expect(media.alive()).toBe(true);
    expect(media.child.pid).toBe(startPid);
    const { files } = await media.client.listFiles({ userId: USER, limit: 100, offset: 0 });
    expect(files.length).toBe(outcomes.length);
    const unsettled = files.filter((f) => f.status !== FileStatus.READY && f.status !== FileStatus.FAILED);
    expect(unsettled.map((f) => `${f.fileName}: ${FileStatus[f.status]}`)).toEqual([]);
    // Each refusal was final on its first judgement: nothing went round the retry loop.
    expect(media.output()).not.toContain("processing failed; will retry");
  });
});
