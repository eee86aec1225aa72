// The ffmpeg/ffprobe and espeak-ng a journey makes its recordings with: FFMPEG_PATH and
// FFPROBE_PATH (the embedded-stack test passes the binaries media itself would run, from
// @transcribe/media/testing/tools), else the system's; espeak-ng is the system's, else its
// WebAssembly build. Two-voice recordings: voicedSpeech, silenceWav and joinWavs.
export { espeakNgSync } from "@transcribe/media/testing/espeak-ng";
export { joinWavs, silenceWav, voicedSpeech } from "@transcribe/media/testing/voices";

export const FFMPEG = process.env.FFMPEG_PATH || "ffmpeg";
export const FFPROBE = process.env.FFPROBE_PATH || "ffprobe";
