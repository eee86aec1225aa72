/**
 * OpenAI's Realtime API sends pcm16 at 24 kHz; our live path runs at 16 kHz (Whisper's
 * rate). Every 3 input samples become 2: the first as it is, the second the mean of the
 * two around its position (1.5). Speech has next to nothing above 8 kHz, so the simple
 * filter loses nothing Whisper would hear. Carries a partial group across chunks.
 */
export class Downsampler24To16 {
  private carry: number[] = [];
  private odd: number | undefined;

  push(chunk: Uint8Array): Uint8Array {
    let bytes = chunk;
    if (this.odd !== undefined) {
      const joined = new Uint8Array(chunk.byteLength + 1);
      joined[0] = this.odd;
      joined.set(chunk, 1);
      bytes = joined;
      this.odd = undefined;
    }
    if (bytes.byteLength % 2 === 1) {
      this.odd = bytes[bytes.byteLength - 1];
      bytes = bytes.subarray(0, bytes.byteLength - 1);
    }
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const samples = [...this.carry];
    for (let i = 0; i < bytes.byteLength; i += 2) samples.push(view.getInt16(i, true));
    const groups = Math.floor(samples.length / 3);
    const out = new DataView(new ArrayBuffer(groups * 4));
    for (let g = 0; g < groups; g++) {
      out.setInt16(g * 4, samples[g * 3]!, true);
      out.setInt16(g * 4 + 2, Math.round((samples[g * 3 + 1]! + samples[g * 3 + 2]!) / 2), true);
    }
    this.carry = samples.slice(groups * 3);
    return new Uint8Array(out.buffer);
  }
}
