// Synthetic voices for tests, benchmarks and browser journeys: espeak-ng speech turned into
// a distinct voice by a pitch shift, silences and joins, all as 16 kHz mono 16-bit WAV. The
// pitch shift runs on the ffmpeg the caller passes (media's choice, so the bundled one on a
// machine without a system FFmpeg); silences and joins are plain PCM written here. Nothing
// else is needed: a machine with only Node and Python runs every two-voice test. Plain
// JavaScript so the journeys in web/e2e, run by `node` itself, use it too.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { espeakNgSync } from "./espeak-ng.mjs";

const RATE = 16000;

/** The fmt fields and the PCM bytes of a WAV (ffmpeg puts a LIST chunk before "data"). */
export function readWav(file) {
  const data = readFileSync(file);
  let format;
  let offset = 12;
  while (offset + 8 <= data.length) {
    const id = data.toString("ascii", offset, offset + 4);
    const size = data.readUInt32LE(offset + 4);
    if (id === "fmt ") {
      format = { channels: data.readUInt16LE(offset + 10), sampleRate: data.readUInt32LE(offset + 12), byteRate: data.readUInt32LE(offset + 16), bitsPerSample: data.readUInt16LE(offset + 22) };
    } else if (id === "data" && format) {
      // espeak-ng writes 0x7fffffff as the size when it streams; the file's end bounds it.
      return { ...format, pcm: data.subarray(offset + 8, Math.min(offset + 8 + size, data.length)) };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error(`${file}: not a PCM WAV file`);
}

/** Seconds of audio in a PCM WAV file. */
export function wavSeconds(file) {
  const wav = readWav(file);
  return wav.pcm.length / wav.byteRate;
}

/** A 16 kHz mono 16-bit WAV file's bytes around `pcm`. */
export function pcmWav(pcm) {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write("WAVEfmt ", 8, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

function writeWav(out, pcm) {
  writeFileSync(out, pcmWav(pcm));
  return out;
}

/** A WAV of `seconds` of digital silence. */
export function silenceWav(out, seconds) {
  return writeWav(out, Buffer.alloc(Math.round(seconds * RATE) * 2));
}

/** Joins 16 kHz mono 16-bit WAVs end to end. */
export function joinWavs(inputs, out) {
  const parts = inputs.map((file) => {
    const wav = readWav(file);
    if (wav.sampleRate !== RATE || wav.channels !== 1 || wav.bitsPerSample !== 16) throw new Error(`${file}: not 16 kHz mono 16-bit`);
    return wav.pcm;
  });
  return writeWav(out, Buffer.concat(parts));
}

/**
 * Speaks `text` with an espeak-ng voice, shifted by `cents` (resampled up or down, then
 * brought back to the original tempo), as 16 kHz mono 16-bit. `trim` cuts the leading and
 * trailing silence (below 0.5 % of full scale for 20 ms), so a reference turn is the speech.
 */
export function voicedSpeech({ ffmpeg, voice, speed, cents = 0, text, raw, out, trim = false }) {
  espeakNgSync(["-v", voice, "-s", String(speed), "-w", raw, text]);
  const { sampleRate } = readWav(raw);
  const factor = 2 ** (cents / 1200);
  const filters = [`asetrate=${Math.round(sampleRate * factor)}`, `aresample=${RATE}`, `atempo=${(1 / factor).toFixed(6)}`];
  if (trim) {
    const cut = "silenceremove=start_periods=1:start_duration=0.02:start_threshold=0.005";
    filters.push(cut, "areverse", cut, "areverse");
  }
  execFileSync(ffmpeg, ["-nostdin", "-v", "error", "-y", "-i", raw, "-af", filters.join(","), "-ar", String(RATE), "-ac", "1", "-c:a", "pcm_s16le", "-map_metadata", "-1", "-fflags", "+bitexact", out]);
  return out;
}
