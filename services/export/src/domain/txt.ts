import { formatClock } from "./time.js";
import { paragraphsOf, type RenderOptions, type Transcript } from "./transcript.js";

/**
 * Plain UTF-8 text: one segment per line (so a line is a unit of speech and the file
 * diffs and greps well), optionally `[hh:mm:ss] ` before each. LF line ends, no BOM.
 */
export function renderTxt(transcript: Transcript, options: RenderOptions = {}): string {
  const lines = paragraphsOf(transcript).map((paragraph) => {
    const text = paragraph.turn ? `${paragraph.turn}: ${paragraph.text}` : paragraph.text;
    return options.includeTimestamps ? `[${formatClock(paragraph.start)}] ${text}` : text;
  });
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
