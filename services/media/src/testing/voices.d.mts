/** The fmt fields and the PCM bytes of a WAV file. */
export function readWav(file: string): { channels: number; sampleRate: number; byteRate: number; bitsPerSample: number; pcm: Buffer };
/** A 16 kHz mono 16-bit WAV file's bytes around `pcm`. */
export function pcmWav(pcm: Buffer): Buffer;
/** Seconds of audio in a PCM WAV file. */
export function wavSeconds(file: string): number;
/** A WAV of `seconds` of digital silence (16 kHz mono 16-bit); returns `out`. */
export function silenceWav(out: string, seconds: number): string;
/** Joins 16 kHz mono 16-bit WAVs end to end; returns `out`. */
export function joinWavs(inputs: readonly string[], out: string): string;
/** espeak-ng speech shifted by `cents`, 16 kHz mono 16-bit, optionally trimmed of silence; returns `out`. */
export function voicedSpeech(options: { ffmpeg: string; voice: string; speed: number; cents?: number; text: string; raw: string; out: string; trim?: boolean }): string;
