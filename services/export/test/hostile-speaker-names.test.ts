import mammoth from "mammoth";
import { parseSync, type NodeCue } from "subtitle";
import { describe, expect, it } from "vitest";
import { readRttm } from "../../../bench/diarization/der.js";
import { buildCues, renderDocx, renderPdf, renderRttm, renderSrt, renderTxt, renderVtt, speakerLabel, type Transcript } from "../src/domain/index.js";
import { inCi, machineFonts, pdfText, popplerAvailable } from "./helpers.js";

/*
 * Names stored before the input rule (or by anything that skips it) must not break an
 * export: every format keeps one segment per line / cue whatever a speaker is called.
 */
const INJECTED = "X\n\n00:00:00.000 --> 00:09:00.000\nINJECTED CUE";
const EVE = "<b>Eve</b>\r\n\r\nS9 \u202eexe.txt\u2066 & co >";
const BELL = "\tBell\u0007\u0085Labs\u2028\u2029\u000b ";

/** A stored transcript whose speakers carry hostile names (as toTranscript hands them over: segment.speaker is the name). */
const transcript: Transcript = {
  id: "t-hostile",
  title: "Hostile names",
  sourceFileName: "meeting.wav",
  language: "en",
  duration: 12,
  text: "Good morning everyone. Thanks for coming. Hello there. Are the reports ready? Yes they are.",
  segments: [
    { id: 0, start: 0, end: 1.8, text: "Good morning everyone.", words: [], speaker: INJECTED },
    { id: 1, start: 2, end: 3.8, text: "Thanks for coming.", words: [], speaker: INJECTED },
    { id: 2, start: 4.5, end: 6.3, text: "Hello there.", words: [], speaker: EVE },
    { id: 3, start: 7, end: 8.8, text: "Are the reports ready?", words: [], speaker: BELL },
    { id: 4, start: 9, end: 10.8, text: "Yes they are.", words: [], speaker: "\u202e\u2066\n" },
  ],
  speakers: [
    { id: "S1", name: INJECTED },
    { id: "S2", name: EVE },
    { id: "S3", name: BELL },
    { id: "S4", name: "\u202e\u2066\n" },
  ],
  speakerTurns: [
    { start: 0, end: 3.9, speaker: INJECTED },
    { start: 4.2, end: 6.6, speaker: EVE },
    { start: 6.9, end: 8.9, speaker: BELL },
  ],
};
const segments = transcript.segments.length;

// What each name shows as: whitespace and controls folded to one space, bidi controls gone.
const X = "X 00:00:00.000 --> 00:09:00.000 INJECTED CUE";
const Eve = "<b>Eve</b> S9 exe.txt & co >";
const Bell = "Bell Labs";
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

describe("speakerLabel: the one way exports show a stored name", () => {
  it("folds runs of whitespace and control characters to a space, drops bidi controls, trims", () => {
    expect(speakerLabel(INJECTED)).toBe(X);
    expect(speakerLabel(EVE)).toBe(Eve);
    expect(speakerLabel(BELL)).toBe(Bell);
    expect(speakerLabel("\u202e\u2066\n")).toBe("");
    expect(speakerLabel("Alice Smith")).toBe("Alice Smith");
    expect(speakerLabel("محمد\u200f")).toBe("محمد\u200f");
    expect(buildCues(transcript.segments).map((c) => c.speaker)).toEqual([X, X, Eve, Bell, undefined]);
  });
});

describe("exports of a transcript whose stored speaker names hold line breaks, controls and bidi overrides", () => {
  it("srt: parses into one cue per segment; the name stays on the cue's first line", () => {
    const srt = renderSrt(transcript);
    const cues = parseSync(srt).filter((n) => n.type === "cue");
    expect(cues).toHaveLength(segments);
    expect(cues.map((n) => (n as NodeCue).data.text)).toEqual([
      "X 00:00:00.000 -> 00:09:00.000 INJECTED CUE: Good morning everyone.",
      "Thanks for coming.",
      `${Eve}: Hello there.`,
      `${Bell}: Are the reports ready?`,
      "Yes they are.",
    ]);
    // Numbered blocks separated by exactly one blank line, nothing else.
    const blocks = srt.split("\r\n\r\n").filter(Boolean);
    expect(blocks).toHaveLength(segments);
    blocks.forEach((block, i) => expect(block.split("\r\n")[0]).toBe(String(i + 1)));
    expect(srt.replaceAll("\r\n", "\n")).not.toMatch(UNSAFE);
  });

  it("vtt: parses into one cue per segment; the voice span is one escaped annotation without '>'", () => {
    const vtt = renderVtt(transcript);
    expect(parseSync(vtt).filter((n) => n.type === "cue")).toHaveLength(segments);
    const [header, ...blocks] = vtt.trimEnd().split("\n\n");
    expect(header).toBe("WEBVTT");
    expect(blocks).toHaveLength(segments);
    for (const block of blocks) {
      const [timing, ...lines] = block.split("\n");
      expect(timing).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3} --> \d{2}:\d{2}:\d{2}\.\d{3}$/);
      // Cue text never holds "-->" (a parser would take the line for a timing line).
      for (const line of lines) expect(line).not.toContain("-->");
    }
    const voices = blocks.map((block) => /^<v ([^>]*)>/.exec(block.split("\n")[1]!)?.[1]);
    expect(voices).toEqual([
      "X 00:00:00.000 --&gt; 00:09:00.000 INJECTED CUE",
      "X 00:00:00.000 --&gt; 00:09:00.000 INJECTED CUE",
      "&lt;b&gt;Eve&lt;/b&gt; S9 exe.txt &amp; co &gt;",
      "Bell Labs",
      undefined,
    ]);
    expect(blocks[4]!.split("\n")[1]).toBe("Yes they are.");
    expect(vtt).not.toMatch(UNSAFE);
  });

  it("txt: one line per segment, the name folded onto it", () => {
    const lines = renderTxt(transcript).slice(0, -1).split("\n");
    expect(lines).toEqual([`${X}: Good morning everyone.`, "Thanks for coming.", `${Eve}: Hello there.`, `${Bell}: Are the reports ready?`, "Yes they are."]);
    expect(renderTxt(transcript, { includeTimestamps: true }).trimEnd().split("\n")).toHaveLength(segments);
    expect(renderTxt(transcript)).not.toMatch(UNSAFE);
  });

  it("docx: one paragraph per segment, the name inside it", async () => {
    const { value } = await mammoth.extractRawText({ buffer: await renderDocx(transcript) });
    const paragraphs = value.split("\n").map((line) => line.trim()).filter(Boolean);
    // After the title, the metadata lines and the rule: the segments.
    const body = paragraphs.slice(paragraphs.findIndex((p) => p.includes("Good morning everyone.")));
    expect(body).toEqual([`${X}: Good morning everyone.`, "Thanks for coming.", `${Eve}: Hello there.`, `${Bell}: Are the reports ready?`, "Yes they are."]);
  });

  const fonts = machineFonts();
  it.skipIf(!inCi && (!fonts || !popplerAvailable))("pdf: the folded name leads its paragraph (pdftotext)", async () => {
    const text = await pdfText((await renderPdf(transcript, { fonts: fonts! })).data);
    expect(text).toContain(`${X}: Good morning everyone.`);
    expect(text).toContain(`${Bell}: Are the reports ready?`);
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/u);
  });

  it("rttm: one ten-field line per turn, the folded name as one field", () => {
    const rttm = renderRttm(transcript);
    const lines = rttm.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines.every((line) => line.split(" ").length === 10)).toBe(true);
    expect(readRttm(rttm).map((t) => t.speaker)).toEqual([X.replaceAll(" ", "_"), Eve.replaceAll(" ", "_"), "Bell_Labs"]);
    expect(rttm).not.toMatch(UNSAFE);
  });
});
