import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { ffmpegPath } from "../src/testing/tools.js";
import type { Fixture } from "./fixtures.js";

const run = promisify(execFile);

/**
 * Files made to hurt a media pipeline, each built here from ffmpeg output and a few
 * patched bytes, so the test shows exactly what is wrong with each.
 */

async function ffmpeg(args: string[]): Promise<void> {
  await run(ffmpegPath, ["-nostdin", "-v", "error", "-y", ...args]);
}

async function fixture(file: string, fileName: string, contentType: string, speechSeconds = 0): Promise<Fixture> {
  return { fileName, contentType, path: file, size: (await stat(file)).size, speechSeconds };
}

/** Bytes from /dev/urandom under an audio name and type. */
export async function randomNoise(dir: string): Promise<Fixture> {
  const file = path.join(dir, "noise.mp3");
  await writeFile(file, randomBytes(64 * 1024));
  return fixture(file, "voice-memo.mp3", "audio/mpeg");
}

/** The right magic number ("fLaC") followed by random bytes: passes sniffing, not parsing. */
export async function magicThenGarbage(dir: string): Promise<Fixture> {
  const file = path.join(dir, "garbage.flac");
  await writeFile(file, Buffer.concat([Buffer.from("fLaC"), randomBytes(64 * 1024)]));
  return fixture(file, "interview.flac", "audio/flac");
}

/** Offset and size field of a WAV's "data" chunk. */
function wavDataChunk(bytes: Buffer): { offset: number; size: number } {
  for (let offset = 12; offset + 8 <= bytes.length; ) {
    const size = bytes.readUInt32LE(offset + 4);
    if (bytes.toString("ascii", offset, offset + 4) === "data") return { offset, size };
    offset += 8 + size + (size % 2);
  }
  throw new Error("no data chunk");
}

/** A WAV whose header promises 0xFFFFFF00 bytes of 8 kHz 8-bit audio: about six days. */
export async function wavDeclaringDays(dir: string, speechWav: string): Promise<Fixture> {
  const source = path.join(dir, "speech-8k.wav");
  await ffmpeg(["-i", speechWav, "-ar", "8000", "-c:a", "pcm_u8", source]);
  const bytes = await readFile(source);
  const data = wavDataChunk(bytes);
  bytes.writeUInt32LE(0xffffff00, data.offset + 4);
  bytes.writeUInt32LE(0xfffffff0, 4);
  const file = path.join(dir, "days.wav");
  await writeFile(file, bytes);
  return fixture(file, "days.wav", "audio/wav");
}

/** A WAV with a valid header and a data chunk of zero bytes. */
export async function wavWithoutSamples(dir: string, speechWav: string): Promise<Fixture> {
  const bytes = await readFile(speechWav);
  const data = wavDataChunk(bytes);
  const empty = Buffer.concat([bytes.subarray(0, data.offset + 4), Buffer.alloc(4)]);
  empty.writeUInt32LE(empty.length - 8, 4);
  const file = path.join(dir, "empty-data.wav");
  await writeFile(file, empty);
  return fixture(file, "empty.wav", "audio/wav");
}

/** A WebM with a video track and an Opus track that holds no packet at all. */
export async function webmWithEmptyAudioTrack(dir: string): Promise<Fixture> {
  const file = path.join(dir, "empty-audio.webm");
  await ffmpeg([
    "-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=2",
    "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono",
    "-map", "0:v", "-map", "1:a", "-c:v", "libvpx", "-c:a", "libopus", "-frames:a", "0", "-t", "2", file,
  ]);
  return fixture(file, "screen-recording.webm", "video/webm");
}

/** A WebM video with no audio track. */
export async function webmWithoutAudio(dir: string): Promise<Fixture> {
  const file = path.join(dir, "no-audio.webm");
  await ffmpeg(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=2", "-c:v", "libvpx", file]);
  return fixture(file, "slides.webm", "video/webm");
}

/**
 * Hours of 8 kHz silence as FLAC: a few MB that decode to hundreds. With `hideLength`
 * the STREAMINFO sample count is zeroed ("unknown", which FLAC allows), so only
 * decoding can tell how long it is.
 */
export async function flacBomb(dir: string, hours: number, hideLength: boolean): Promise<Fixture> {
  const file = path.join(dir, `silence-${hours}h${hideLength ? "-hidden" : ""}.flac`);
  await ffmpeg([
    "-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", String(hours * 3600),
    "-c:a", "flac", "-compression_level", "8", file,
  ]);
  if (hideLength) await patchFlacSampleCount(file, 0n);
  return fixture(file, "podcast.flac", "audio/flac");
}

/** A 2-s FLAC whose STREAMINFO claims three days of samples. */
export async function flacDeclaringDays(dir: string, speechWav: string): Promise<Fixture> {
  const file = path.join(dir, "days.flac");
  await ffmpeg(["-i", speechWav, "-ar", "16000", "-c:a", "flac", file]);
  await patchFlacSampleCount(file, BigInt(3 * 86_400 * 16_000));
  return fixture(file, "days.flac", "audio/flac");
}

/**
 * STREAMINFO (the first metadata block, right after "fLaC" and its 4-byte header) packs
 * sample rate (20 bits), channels (3), bits per sample (5) and the total sample count
 * (36) into the 8 bytes at offset 18.
 */
async function patchFlacSampleCount(file: string, samples: bigint): Promise<void> {
  const bytes = await readFile(file);
  if (bytes.toString("ascii", 0, 4) !== "fLaC") throw new Error("not a FLAC file");
  const mask = (1n << 36n) - 1n;
  const packed = bytes.readBigUInt64BE(18);
  bytes.writeBigUInt64BE((packed & ~mask) | (samples & mask), 18);
  await writeFile(file, bytes);
}

/** An MP4 whose movie header (mvhd) says three days while its one audio track holds 2 s. */
export async function mp4DeclaringDays(dir: string, speechWav: string): Promise<Fixture> {
  const source = path.join(dir, "speech.m4a");
  await ffmpeg(["-i", speechWav, "-c:a", "aac", source]);
  const bytes = await readFile(source);
  const mvhd = bytes.indexOf("mvhd");
  // mvhd version 0: type, version+flags, creation, modification, timescale, duration.
  if (bytes[mvhd + 4] !== 0) throw new Error("expected a version 0 mvhd");
  const timescale = bytes.readUInt32BE(mvhd + 16);
  bytes.writeUInt32BE(Math.min(0xffffffff, timescale * 3 * 86_400), mvhd + 20);
  const file = path.join(dir, "days.m4a");
  await writeFile(file, bytes);
  return fixture(file, "days.m4a", "audio/mp4");
}

/**
 * An MP4 with `count` audio tracks: one tiny AAC track whose `trak` box is repeated
 * (each copy with its own track id, all pointing at the same samples). ffmpeg cannot
 * write more than 1,000 streams, so the box is copied by hand; the movie box is the
 * last one, so no sample offset moves.
 */
export async function mp4WithManyTracks(dir: string, count: number): Promise<Fixture> {
  const source = path.join(dir, "tiny.m4a");
  await ffmpeg(["-f", "lavfi", "-i", "sine=duration=0.2:sample_rate=8000", "-c:a", "aac", "-b:a", "8k", source]);
  const bytes = await readFile(source);
  const top = boxes(bytes, 0, bytes.length);
  const moov = top.find((b) => b.type === "moov");
  if (!moov || moov !== top[top.length - 1]) throw new Error("expected the moov box last");
  const inner = boxes(bytes, moov.start + 8, moov.end);
  const trak = inner.find((b) => b.type === "trak")!;
  const copies = Array.from({ length: count - 1 }, (_, i) => {
    const copy = Buffer.from(bytes.subarray(trak.start, trak.end));
    const tkhd = copy.indexOf("tkhd");
    copy.writeUInt32BE(i + 2, tkhd + 16); // type, version+flags, creation, modification, track id
    return copy;
  });
  const body = Buffer.concat([...inner.map((b) => bytes.subarray(b.start, b.end)), ...copies]);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(body.length + 8);
  header.write("moov", 4);
  const file = path.join(dir, `tracks-${count}.m4a`);
  await writeFile(file, Buffer.concat([bytes.subarray(0, moov.start), header, body]));
  return fixture(file, `tracks-${count}.m4a`, "audio/mp4");
}

function boxes(bytes: Buffer, start: number, end: number): Array<{ type: string; start: number; end: number }> {
  const found = [];
  for (let offset = start; offset + 8 <= end; ) {
    const size = bytes.readUInt32BE(offset);
    if (size < 8) throw new Error("unexpected box size");
    found.push({ type: bytes.toString("ascii", offset + 4, offset + 8), start: offset, end: offset + size });
    offset += size;
  }
  return found;
}
