import { speakerLabel, type Transcript } from "./transcript.js";

/**
 * RTTM (NIST Rich Transcription Time Marked), the format diarization is scored in:
 * one `SPEAKER <file> 1 <start> <duration> <NA> <NA> <name> <NA> <NA>` line per speaker
 * turn, times in seconds. The turns are the diarizer's own (speech between words
 * included), under the names the user gave the speakers (folded as speakerLabel does).
 * A field may not hold a space, so spaces in names and in the file id become `_`. Empty
 * when the transcript has no speakers.
 */
export function renderRttm(transcript: Transcript): string {
  const file = field(rttmFileId(transcript));
  return (transcript.speakerTurns ?? [])
    .filter((turn) => turn.end > turn.start)
    .map((turn) => `SPEAKER ${file} 1 ${seconds(turn.start)} ${seconds(turn.end - turn.start)} <NA> <NA> ${field(speakerLabel(turn.speaker))} <NA> <NA>\n`)
    .join("");
}

/** The recording's id: the uploaded file's name without its extension, else the title. */
export function rttmFileId(transcript: Transcript): string {
  const name = transcript.sourceFileName?.replace(/\.[^./\\]{1,8}$/u, "").trim();
  return name || transcript.title;
}

function field(value: string): string {
  return value.trim().replace(/\s+/gu, "_") || "<NA>";
}

function seconds(value: number): string {
  return (Math.round(value * 1000) / 1000).toFixed(3);
}
