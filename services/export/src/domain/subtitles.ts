import { buildCues, type Cue, type CueOptions } from "./cues.js";
import { formatTimecode } from "./time.js";
import type { Transcript } from "./transcript.js";

/**
 * SubRip: numbered cues, `00:01:02,345 --> 00:01:04,000`, CRLF line ends (what the
 * oldest players expect; every newer one accepts them too), UTF-8 without a BOM.
 */
export function renderSrt(transcript: Transcript, options: CueOptions = {}): string {
  return buildCues(transcript.segments, options)
    .map((cue, index) => {
      // The speaker's name (folded onto one line by buildCues) leads the first cue of each turn.
      const lines = cue.lines.map((line, i) => (i === 0 && cue.turnStart ? `${cue.speaker}: ${line}` : line).replaceAll("-->", "->"));
      return `${[String(index + 1), timing(cue, ","), ...lines].join("\r\n")}\r\n`;
    })
    .join("\r\n");
}

/** WebVTT: the `WEBVTT` header, `00:01:02.345 --> 00:01:04.000`, cue text escaped. */
export function renderVtt(transcript: Transcript, options: CueOptions = {}): string {
  // Every cue of a speaker carries a voice span, <v Name>, which players show or style. The
  // name comes folded onto one line (buildCues, speakerLabel) and is escaped like cue text,
  // so the annotation holds no line break (which would end the cue) and no ">" (which would end the tag).
  const cues = buildCues(transcript.segments, options).map((cue) =>
    [timing(cue, "."), ...cue.lines.map((line, i) => (i === 0 && cue.speaker ? `<v ${escapeVtt(cue.speaker)}>` : "") + escapeVtt(line))].join("\n"),
  );
  return `${["WEBVTT", ...cues].join("\n\n")}\n`;
}

function timing(cue: Cue, separator: "," | "."): string {
  return `${formatTimecode(cue.start, separator)} --> ${formatTimecode(cue.end, separator)}`;
}

// "<" and "&" start markup in cue text; ">" is escaped too so "-->" can never appear.
function escapeVtt(line: string): string {
  return line.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
