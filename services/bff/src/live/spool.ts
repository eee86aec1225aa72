import { randomUUID } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdir, open, rm } from "node:fs/promises";
import path from "node:path";

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
 * mono 16-bit WAV whose sizes are filled in when it is closed. What a worker failure or a
 * vanished client leaves behind is still a whole file for the batch pass.
 */
export class WavSpool {
  private constructor(
    readonly path: string,
    private readonly out: WriteStream,
    private bytes = 0,
  ) {}

  static async create(dir: string): Promise<WavSpool> {
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, `live-${randomUUID()}.wav`);
    const out = createWriteStream(file, { mode: 0o600 });
    out.write(wavHeader(0));
    return new WavSpool(file, out);
  }

  get seconds(): number {
    return this.bytes / (SAMPLE_RATE * 2);
  }

  get size(): number {
    return HEADER_BYTES + this.bytes;
  }

  append(pcm: Uint8Array): void {
    this.bytes += pcm.byteLength;
    this.out.write(pcm);
  }

  /** Flushes the audio and writes the real sizes into the header. */
  async close(): Promise<void> {
    if (!this.out.closed) await new Promise<void>((resolve, reject) => this.out.end((error?: Error | null) => (error ? reject(error) : resolve())));
    const handle = await open(this.path, "r+");
    try {
      await handle.write(wavHeader(this.bytes), 0, HEADER_BYTES, 0);
    } finally {
      await handle.close();
    }
  }

  async remove(): Promise<void> {
    this.out.destroy();
    await rm(this.path, { force: true });
  }
}
