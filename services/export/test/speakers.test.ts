import { create } from "@bufbuild/protobuf";
import { TranscriptionSchema, TranscriptionStatus, type Transcription } from "@transcribe/proto/transcription/v1/transcription";
import mammoth from "mammoth";
import { parseSync, type NodeCue } from "subtitle";
import { describe, expect, it } from "vitest";
import { readRttm } from "../../../bench/diarization/der.js";
import { renderDocx, renderJson, renderPdf, renderRttm, renderSrt, renderTxt, renderVtt } from "../src/domain/index.js";
import { toTranscript } from "../src/transcripts.js";
import { inCi, machineFonts, pdfText, popplerAvailable } from "./helpers.js";

/** A diarized transcript as GetTranscription returns it, with the speakers' current names. */
function diarized(names: Record<string, string>): Transcription {
  const word = (w: string, start: number, speaker: string) => ({ word: w, start, end: start + 0.4, speaker });
  const segment = (id: number, start: number, text: string, speaker: string) => ({
    id,
    start,
    end: start + 1.8,
    text,
    speaker,
    words: text
      .trim()
      .split(" ")
      .map((w, i) => word(w, start + i * 0.45, speaker)),
  });
  return create(TranscriptionSchema, {
    id: "t-1",
    displayName: "Weekly meeting",
    status: TranscriptionStatus.COMPLETED,
    audioFile: { fileId: "f", fileName: "meeting.wav" },
    config: { model: "whisper-base", language: "en", diarize: true },
    result: {
      id: "r-1",
      text: "Good morning everyone. Thanks for coming. Hello there. Are the reports ready?",
      language: "en",
      duration: 10,
      speakers: [
        { id: "S1", name: names.S1 ?? "S1" },
        { id: "S2", name: names.S2 ?? "S2" },
      ],
      segments: [
        segment(0, 0, " Good morning everyone.", "S1"),
        segment(1, 2, " Thanks for coming.", "S1"),
        segment(2, 4.5, " Hello there.", "S2"),
        segment(3, 7, " Are the reports ready?", "S1"),
      ],
      // The diarizer's turns: speech between the words too (S2 from 4.2 s, before its first word).
      speakerTurns: [
        { start: 0.1, end: 3.9, speaker: "S1" },
        { start: 4.2, end: 6.6, speaker: "S2" },
        { start: 6.9, end: 8.95, speaker: "S1" },
      ],
    },
  });
}

const before = toTranscript(diarized({}));
const after = toTranscript(diarized({ S1: "Alice Smith", S2: "Bob <the PM>" }));

describe("exports after a speaker rename carry the new names", () => {
  it("txt: the name at each turn", () => {
    expect(renderTxt(before)).toBe("S1: Good morning everyone.\nThanks for coming.\nS2: Hello there.\nS1: Are the reports ready?\n");
    expect(renderTxt(after)).toBe("Alice Smith: Good morning everyone.\nThanks for coming.\nBob <the PM>: Hello there.\nAlice Smith: Are the reports ready?\n");
    expect(renderTxt(after, { includeTimestamps: true }).split("\n")[2]).toBe("[00:00:04] Bob <the PM>: Hello there.");
  });

  it("srt: the name leads each turn's first cue; vtt: a voice span on every cue, escaped", () => {
    const srt = renderSrt(after);
    const texts = parseSync(srt).map((n) => (n as NodeCue).data.text);
    expect(texts).toEqual(["Alice Smith: Good morning everyone.", "Thanks for coming.", "Bob <the PM>: Hello there.", "Alice Smith: Are the reports ready?"]);
    expect(renderSrt(before)).toContain("S1: Good morning everyone.");
    expect(srt).not.toContain("S1:");

    const vtt = renderVtt(after);
    expect(vtt.startsWith("WEBVTT\n\n")).toBe(true);
    expect(vtt).toContain("00:00:00.000 --> 00:00:01.800\n<v Alice Smith>Good morning everyone.\n");
    expect(vtt).toContain("<v Alice Smith>Thanks for coming.");
    expect(vtt).toContain("<v Bob &lt;the PM&gt;>Hello there.");
    expect(vtt).not.toContain("<v S1>");
    expect(renderVtt(before)).toContain("<v S1>Good morning everyone.");
  });

  it("json: speakers with names, the name on every segment and word", () => {
    const json = JSON.parse(renderJson(after));
    expect(json.speakers).toEqual([
      { id: "S1", name: "Alice Smith" },
      { id: "S2", name: "Bob <the PM>" },
    ]);
    expect(json.segments.map((s: { speaker: string }) => s.speaker)).toEqual(["Alice Smith", "Alice Smith", "Bob <the PM>", "Alice Smith"]);
    for (const s of json.segments) for (const w of s.words) expect(w.speaker).toBe(s.speaker);
    expect(JSON.parse(renderJson(before)).segments[0].speaker).toBe("S1");
  });

  it("docx: the name per turn", async () => {
    const { value } = await mammoth.extractRawText({ buffer: await renderDocx(after) });
    expect(value).toContain("Alice Smith: Good morning everyone.");
    expect(value).toContain("Bob <the PM>: Hello there.");
    expect(value).toContain("Alice Smith: Are the reports ready?");
    expect(value).not.toContain("S1:");
    expect(value).not.toContain("Alice Smith: Thanks for coming.");
  });

  const fonts = machineFonts();
  it.skipIf(!inCi && (!fonts || !popplerAvailable))("pdf: the name per turn (pdftotext)", async () => {
    const text = await pdfText((await renderPdf(after, { fonts: fonts! })).data);
    expect(text).toContain("Alice Smith: Good morning everyone.");
    expect(text).toContain("Bob <the PM>: Hello there.");
    expect(text).not.toContain("S1:");
  });

  it("a transcript without speakers renders as before (no names, no voice spans)", () => {
    const plain = toTranscript(create(TranscriptionSchema, { ...diarized({}), result: { ...diarized({}).result!, speakers: [], segments: diarized({}).result!.segments.map((s) => ({ ...s, speaker: undefined, words: [] })) } }));
    expect(renderTxt(plain)).toBe("Good morning everyone.\nThanks for coming.\nHello there.\nAre the reports ready?\n");
    expect(renderVtt(plain)).not.toContain("<v");
    expect(JSON.parse(renderJson(plain)).speakers).toEqual([]);
  });
});

describe("rttm: the diarizer's turns under the speakers' names", () => {
  it("one SPEAKER line per turn, file id from the file name, spaces in names as _", () => {
    expect(renderRttm(before)).toBe(
      "SPEAKER meeting 1 0.100 3.800 <NA> <NA> S1 <NA> <NA>\n" +
        "SPEAKER meeting 1 4.200 2.400 <NA> <NA> S2 <NA> <NA>\n" +
        "SPEAKER meeting 1 6.900 2.050 <NA> <NA> S1 <NA> <NA>\n",
    );
    const renamed = renderRttm(after);
    expect(renamed.split("\n")[1]).toBe("SPEAKER meeting 1 4.200 2.400 <NA> <NA> Bob_<the_PM> <NA> <NA>");
    // What a scoring tool reads back: the same turns, ten fields a line.
    expect(readRttm(renamed)).toEqual([
      { start: 0.1, end: 3.9, speaker: "Alice_Smith" },
      { start: 4.2, end: 4.2 + 2.4, speaker: "Bob_<the_PM>" },
      { start: 6.9, end: 6.9 + 2.05, speaker: "Alice_Smith" },
    ]);
    expect(renamed.trim().split("\n").every((line) => line.split(" ").length === 10)).toBe(true);
  });

  it("a transcript without speakers is an empty RTTM; the title stands in for a missing file name", () => {
    const plain = toTranscript(diarized({}));
    expect(renderRttm({ ...plain, speakerTurns: [] })).toBe("");
    const { sourceFileName: _n, ...untitled } = plain;
    expect(renderRttm({ ...untitled, title: "Weekly  meeting" }).split(" ")[1]).toBe("Weekly_meeting");
  });
});
