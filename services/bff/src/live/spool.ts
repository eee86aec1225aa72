import { closeSync, openSync, readSync, writeSync, type PathLike } from "node:fs";
import { rm, stat, truncate } from "node:fs/promises";

const SAMPLE_RATE = 16_000;
const HEADER_BYTES = 44;

function wavHeader(dataBytes: number): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/**
 * A live session's audio, written to disk as it arrives (never only in memory): a 16 kHz
 * mono 16-bit WAV whose sizes are filled in when it is closed. Frames are written with
 * plain synchronous writes (a 100 ms frame is 3.2 KB), so the byte count the client is
 * told (its acknowledged offset) is what the file holds, and what a killed BFF leaves on
 * disk is every frame it acknowledged: a restarted BFF reopens it and the client resumes
 * from there (decision 0037).
 */
export class WavSpool {
  private constructor(
    readonly path: string,
    private fd: number | undefined,
    private bytes: number,
  ) {}

  static create(file: string): WavSpool {
    const fd = openSync(file, "wx", 0o600);
    writeSync(fd, wavHeader(0));
    return new WavSpool(file, fd, 0);
  }

  /** Opens a spool left by a session that is resuming; a half-written sample at its end is cut off. */
  static async reopen(file: string): Promise<WavSpool> {
    const size = (await stat(file)).size;
    const bytes = Math.max(0, size - HEADER_BYTES) & ~1;
    if (size !== HEADER_BYTES + bytes) await truncate(file, HEADER_BYTES + bytes);
    return new WavSpool(file, openSync(file, "a"), bytes);
  }

  /** Bytes of PCM stored (the offset the next frame is written at). */
  get audioBytes(): number {
    return this.bytes;
  }

  get seconds(): number {
    return this.bytes / (SAMPLE_RATE * 2);
  }

  get size(): number {
    return HEADER_BYTES + this.bytes;
  }

  append(pcm: Uint8Array): void {
    if (this.fd === undefined) throw new Error("the live spool is closed");
    writeSync(this.fd, pcm);
    this.bytes += pcm.byteLength;
  }

  /** The PCM stored from byte `from` of the audio to its end. */
  read(from: number): Buffer {
    const start = Math.min(Math.max(0, from & ~1), this.bytes);
    const out = Buffer.alloc(this.bytes - start);
    const fd = openSync(this.path as PathLike, "r");
    try {
      let done = 0;
      while (done < out.length) {
        const n = readSync(fd, out, done, out.length - done, HEADER_BYTES + start + done);
        if (n === 0) break;
        done += n;
      }
    } finally {
      closeSync(fd);
    }
    return out;
  }

  /** Writes the real sizes into the header and closes the file. */
  async close(): Promise<void> {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
    const fd = openSync(this.path, "r+");
    try {
      writeSync(fd, wavHeader(this.bytes), 0, HEADER_BYTES, 0);
    } finally {
      closeSync(fd);
    }
  }

  /** Closes the file and leaves it where it is (a session suspended for its successor). */
  release(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  async remove(): Promise<void> {
    this.release();
    await rm(this.path, { force: true });
  }
}
