import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import mammoth from "mammoth";
import { parseSync, type NodeCue } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildCues,
  displayWidth,
  formatClock,
  formatTimecode,
  normalizeSpace,
  renderDocx,
  renderJson,
  renderPdf,
  renderSrt,
  renderTxt,
  renderVtt,
  toTranscriptJson,
  type Transcript,
} from "../src/domain/index.js";
import { fixtureTranscript, scriptSamples } from "./fixtures/transcript.js";
import { inCi, machineFonts, popplerAvailable, squash } from "./helpers.js";

const allSamples = Object.values(scriptSamples).flat();
const segmentTexts = fixtureTranscript.segments.map((segment) => normalizeSpace(segment.text));

describe("txt", () => {
  it("round-trips: one line per segment, in order, every script intact", () => {
    const text = renderTxt(fixtureTranscript);
    expect(text.endsWith("\n")).toBe(true);
    expect(text.slice(0, -1).split("\n")).toEqual(segmentTexts);
    for (const word of allSamples) expect(text).toContain(word);
  });

  it("prefixes [hh:mm:ss] stamps when asked, and they parse back to each segment's start", () => {
    const lines = renderTxt(fixtureTranscript, { includeTimestamps: true }).trimEnd().split("\n");
    expect(lines).toHaveLength(fixtureTranscript.segments.length);
    lines.forEach((line, index) => {
      const match = /^\[(\d{2}):(\d{2}):(\d{2})\] (.*)$/.exec(line);
      expect(match, line).not.toBeNull();
      const [, h, m, s, rest] = match!;
      expect(Number(h) * 3600 + Number(m) * 60 + Number(s)).toBe(Math.floor(fixtureTranscript.segments[index]!.start));
      expect(rest).toBe(segmentTexts[index]);
    });
  });

  it("formats stamps past 99 hours and clamps nonsense times", () => {
    expect(formatClock(3723.9)).toBe("01:02:03");
    expect(formatClock(360_000)).toBe("100:00:00");
    expect(formatClock(-5)).toBe("00:00:00");
    expect(formatClock(Number.NaN)).toBe("00:00:00");
  });

  it("falls back to the whole text when there are no segments", () => {
    const bare: Transcript = { ...fixtureTranscript, segments: [], text: "  Nur   Text\nohne Segmente " };
    expect(renderTxt(bare)).toBe("Nur Text ohne Segmente\n");
  });
});

describe("json", () => {
  it("round-trips segments, words and metadata exactly", () => {
    const text = renderJson(fixtureTranscript);
    const parsed = JSON.parse(text) as ReturnType<typeof toTranscriptJson>;
    expect(parsed).toEqual(toTranscriptJson(fixtureTranscript));
    expect(parsed.title).toBe(fixtureTranscript.title);
    expect(parsed.source_file_name).toBe("interview-müller.mp3");
    expect(parsed.language).toBe("de");
    expect(parsed.model).toBe("whisper-large-v3-turbo");
    expect(parsed.created_at).toBe("2025-03-14T09:26:53.000Z");
    expect(parsed.segments.map((s) => s.text)).toEqual(fixtureTranscript.segments.map((s) => s.text));
    expect(parsed.segments[3]!.words.map((w) => w.word).join("")).toBe(fixtureTranscript.segments[3]!.text);
    const word = fixtureTranscript.segments[1]!.words[0]!;
    expect(parsed.segments[1]!.words[0]).toEqual({ word: "Grüße", start: 3.4, end: word.end, probability: 0.9 });
  });

  it("puts each word on one line and keeps an empty transcript valid", () => {
    const lines = renderJson(fixtureTranscript).split("\n");
    expect(lines.filter((line) => line.trimStart().startsWith('{"word":')).length).toBe(
      fixtureTranscript.segments.reduce((sum, s) => sum + s.words.length, 0),
    );
    const empty = JSON.parse(renderJson({ ...fixtureTranscript, segments: [], text: "" }));
    expect(empty.segments).toEqual([]);
  });
});

/** The rules every cue list must satisfy, for srt and vtt alike. */
function expectValidCues(cues: Array<{ start: number; end: number; text: string }>, transcript: Transcript) {
  expect(cues.length).toBeGreaterThan(transcript.segments.length);
  const first = Math.round(transcript.segments[0]!.start * 1000);
  const last = Math.round(Math.max(...transcript.segments.map((s) => s.end)) * 1000);
  cues.forEach((cue, index) => {
    expect(cue.end, `cue ${index + 1} ends after it starts`).toBeGreaterThan(cue.start);
    expect(cue.start).toBeGreaterThanOrEqual(first);
    expect(cue.end).toBeLessThanOrEqual(last);
    if (index > 0) {
      const previous = cues[index - 1]!;
      expect(cue.start, `cue ${index + 1} starts after cue ${index} ends`).toBeGreaterThanOrEqual(previous.end);
    }
    const lines = cue.text.split("\n");
    expect(lines.length, `cue ${index + 1}: ${cue.text}`).toBeLessThanOrEqual(2);
    for (const line of lines) {
      expect(line.length).toBeLessThanOrEqual(42);
      expect(displayWidth(line), line).toBeLessThanOrEqual(42);
      expect(line).toBe(line.trim());
      expect(line.length).toBeGreaterThan(0);
    }
  });
  // Nothing lost, nothing repeated, nothing reordered.
  expect(squash(cues.map((cue) => cue.text).join(""))).toBe(squash(transcript.segments.map((s) => s.text).join("")));
}

const unescapeVtt = (text: string) => text.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");

describe("srt", () => {
  const srt = renderSrt(fixtureTranscript);
  const cues = parseSync(srt).filter((node): node is NodeCue => node.type === "cue").map((node) => node.data);

  it("parses with a subtitle library into monotonic, non-overlapping cues of at most 2 lines of 42 characters", () => {
    expectValidCues(cues, fixtureTranscript);
  });

  it("numbers cues from 1 and writes HH:MM:SS,mmm timecodes with CRLF line ends", () => {
    const blocks = srt.split("\r\n\r\n").filter(Boolean);
    expect(blocks).toHaveLength(cues.length);
    blocks.forEach((block, index) => {
      const [number, timing] = block.split("\r\n");
      expect(number).toBe(String(index + 1));
      expect(timing).toMatch(/^\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}$/);
    });
    expect(srt).not.toMatch(/[^\r]\n/);
    expect(srt.charCodeAt(0)).not.toBe(0xfeff);
  });

  it("splits long segments at word timings", () => {
    // The Russian segment (Whisper-style words) is too long for one cue: its cues meet at
    // the boundary between two of its words.
    const russian = fixtureTranscript.segments[2]!;
    const inside = cues.filter((cue) => cue.start >= russian.start * 1000 && cue.end <= russian.end * 1000);
    expect(inside.length).toBeGreaterThanOrEqual(2);
    const boundary = inside[1]!.start / 1000;
    expect(russian.words.some((word) => Math.abs(word.start - boundary) < 0.001)).toBe(true);
    expect(inside[0]!.text.startsWith("Привет")).toBe(true);
  });

  it("splits long segments without words in proportion to their characters", () => {
    const long = fixtureTranscript.segments[8]!;
    const inside = cues.filter((cue) => cue.start >= long.start * 1000 && cue.end <= long.end * 1000);
    expect(inside.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < inside.length; i++) {
      const before = squash(inside.slice(0, i).map((c) => c.text).join("")).length;
      const expected = long.start * 1000 + ((long.end - long.start) * 1000 * before) / squash(long.text).length;
      // Proportional to characters (spaces included in the real split), within a second.
      expect(Math.abs(inside[i]!.start - expected)).toBeLessThan(1000);
    }
  });

  it("gives way when source segments overlap", () => {
    const last = cues.at(-1)!;
    expect(last.text).toBe("Thank you & goodbye <3");
    expect(last.start).toBe(69_500);
    expect(cues.at(-2)!.end).toBeLessThanOrEqual(69_500);
  });

  it("counts East Asian characters as two columns: at most 21 per line", () => {
    const chinese = cues.filter((cue) => /[\u4e00-\u9fff]/.test(cue.text) && !/[A-Za-z]/.test(cue.text));
    expect(chinese.length).toBeGreaterThan(0);
    for (const cue of chinese) for (const line of cue.text.split("\n")) expect(Array.from(line).length).toBeLessThanOrEqual(21);
  });
});

describe("vtt", () => {
  const vtt = renderVtt(fixtureTranscript);
  const nodes = parseSync(vtt);
  const cues = nodes
    .filter((node): node is NodeCue => node.type === "cue")
    .map((node) => ({ ...node.data, text: unescapeVtt(node.data.text) }));

  it("starts with the WEBVTT header and parses into the same cues as the srt", () => {
    expect(vtt.startsWith("WEBVTT\n\n")).toBe(true);
    expect(nodes[0]).toEqual({ type: "header", data: "WEBVTT" });
    expectValidCues(cues, fixtureTranscript);
    const srtCues = parseSync(renderSrt(fixtureTranscript)).filter((node) => node.type === "cue");
    expect(cues.map((c) => [c.start, c.end, c.text])).toEqual(srtCues.map((n) => [n.data.start, n.data.end, (n.data as { text: string }).text]));
  });

  it("writes HH:MM:SS.mmm timecodes and escapes markup characters", () => {
    expect(vtt).toMatch(/^00:01:09\.500 --> 00:01:11\.000$/m);
    expect(vtt).toContain("Thank you &amp; goodbye &lt;3");
    expect(vtt.split("\n").filter((line) => line.includes("-->")).every((line) => /^\d{2}:\d{2}:\d{2}\.\d{3} --> \d{2}:\d{2}:\d{2}\.\d{3}$/.test(line))).toBe(true);
  });
});

describe("cues", () => {
  it("keeps cues apart and at least 1 ms long even for zero-length and identical segments", () => {
    const cues = buildCues([
      { id: 0, start: 5, end: 5, text: "a", words: [] },
      { id: 1, start: 5, end: 5, text: "b", words: [] },
      { id: 2, start: 4, end: 6, text: "c", words: [] },
      { id: 3, start: Number.NaN, end: -1, text: "d", words: [] },
      { id: 4, start: 7, end: 8, text: "   ", words: [] },
    ]);
    expect(cues.map((c) => c.lines.join(" "))).toEqual(["d", "c", "a", "b"]);
    for (let i = 1; i < cues.length; i++) expect(cues[i]!.start).toBeGreaterThanOrEqual(cues[i - 1]!.end);
    for (const cue of cues) expect(cue.end).toBeGreaterThan(cue.start);
  });

  it("cuts a word longer than a line and balances two lines", () => {
    const cues = buildCues([{ id: 0, start: 0, end: 2, text: `${"x".repeat(100)} end`, words: [] }]);
    for (const cue of cues) for (const line of cue.lines) expect(line.length).toBeLessThanOrEqual(42);
    expect(squash(cues.flatMap((c) => c.lines).join(""))).toBe(`${"x".repeat(100)}end`);
    const [balanced] = buildCues([{ id: 0, start: 0, end: 2, text: "one two three four five six seven eight nine ten", words: [] }]);
    expect(balanced!.lines).toEqual(["one two three four five", "six seven eight nine ten"]);
  });

  it("uses the words' own text when the segment text is empty", () => {
    const [cue] = buildCues([
      { id: 0, start: 0, end: 1, text: "", words: [{ word: "Hallo", start: 0, end: 0.5 }, { word: " Welt", start: 0.5, end: 1 }] },
    ]);
    expect(cue!.lines).toEqual(["Hallo Welt"]);
  });

  it("formats timecodes for both formats", () => {
    expect(formatTimecode(3_723_045, ",")).toBe("01:02:03,045");
    expect(formatTimecode(3_723_045, ".")).toBe("01:02:03.045");
  });
});

describe("docx", () => {
  it("opens with a docx reader (mammoth) and holds the header and every segment's text", async () => {
    const data = await renderDocx(fixtureTranscript, { includeTimestamps: true });
    expect(data.subarray(0, 2).toString()).toBe("PK");
    const { value, messages } = await mammoth.extractRawText({ buffer: data });
    expect(messages).toEqual([]);
    const paragraphs = value.split("\n").map((line) => line.trim()).filter(Boolean);
    expect(paragraphs[0]).toBe(fixtureTranscript.title);
    expect(paragraphs.slice(1, 6)).toEqual([
      "Source file: interview-müller.mp3",
      "Language: German (de)",
      "Model: whisper-large-v3-turbo",
      "Date: 2025-03-14 09:26 UTC",
      "Duration: 1:11",
    ]);
    expect(paragraphs.slice(6)).toEqual(
      fixtureTranscript.segments.map((segment, index) => `[${formatClock(segment.start)}] ${segmentTexts[index]}`),
    );
  });

  it("leaves the stamps out unless asked", async () => {
    const { value } = await mammoth.extractRawText({ buffer: await renderDocx(fixtureTranscript) });
    const paragraphs = value.split("\n").map((line) => line.trim()).filter(Boolean);
    expect(paragraphs.slice(6)).toEqual(segmentTexts);
  });
});

const fonts = machineFonts();
const skipPdf = !inCi && (!fonts || !popplerAvailable);

describe.skipIf(skipPdf)("pdf (poppler-utils and fonts; skipped only outside CI when missing)", () => {
  let dir: string;
  let file: string;
  let pages: number;
  let missing: string[];

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "export-pdf-"));
    file = path.join(dir, "transcript.pdf");
    const pdf = await renderPdf(fixtureTranscript, { fonts: fonts!, includeTimestamps: true });
    pages = pdf.pages;
    missing = pdf.missingGlyphs;
    await writeFile(file, pdf.data);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const run = (command: string, args: string[]) => {
    const result = spawnSync(command, args, { encoding: "utf8" });
    if (result.error) throw result.error;
    return result;
  };

  it("has a glyph for every character", () => {
    expect(missing).toEqual([]);
  });

  it("turns into text (pdftotext) that contains every script's words, the header and page numbers", () => {
    const { status, stdout, stderr } = run("pdftotext", ["-enc", "UTF-8", file, "-"]);
    expect(stderr).toBe("");
    expect(status).toBe(0);
    for (const [script, words] of Object.entries(scriptSamples)) {
      for (const word of words) {
        // Chinese and Japanese lines may break between any two characters.
        const haystack = script === "chinese" || script === "japanese" ? squash(stdout) : stdout;
        expect(haystack, `${script}: ${word}`).toContain(word);
      }
    }
    expect(stdout).toContain("Source file: interview-müller.mp3");
    expect(stdout).toContain("Model: whisper-large-v3-turbo");
    expect(stdout).toContain("[00:00:03] Grüße aus München!");
    expect(stdout).toMatch(new RegExp(`1\\s*/\\s*${pages}`));
  });

  it("embeds every font it uses (pdffonts)", () => {
    const { status, stdout } = run("pdffonts", [file]);
    expect(status).toBe(0);
    const rows = stdout.trim().split("\n").slice(2);
    expect(rows.length).toBeGreaterThanOrEqual(4);
    for (const row of rows) expect(row, row).toMatch(/Identity-H\s+yes\s+yes\s+yes/);
  });

  it("renders its first page to PNG (pdftoppm) without an error", async () => {
    const prefix = path.join(dir, "page");
    const { status, stderr } = run("pdftoppm", ["-png", "-r", "50", "-f", "1", "-l", "1", file, prefix]);
    expect(stderr).toBe("");
    expect(status).toBe(0);
    const png = await readFile(`${prefix}-1.png`);
    expect(png.subarray(1, 4).toString()).toBe("PNG");
    expect((await stat(`${prefix}-1.png`)).size).toBeGreaterThan(1000);
  });

  it("numbers pages and carries the title in its metadata", async () => {
    const long: Transcript = {
      ...fixtureTranscript,
      segments: Array.from({ length: 120 }, (_, i) => ({ ...fixtureTranscript.segments[i % 8]!, id: i, start: i * 5, end: i * 5 + 4 })),
    };
    const pdf = await renderPdf(long, { fonts: fonts! });
    expect(pdf.pages).toBeGreaterThan(3);
    const longFile = path.join(dir, "long.pdf");
    await writeFile(longFile, pdf.data);
    const info = run("pdfinfo", [longFile]).stdout;
    expect(info).toMatch(new RegExp(`Pages:\\s+${pdf.pages}`));
    expect(info).toMatch(new RegExp(`^Title:\\s+${fixtureTranscript.title}$`, "m"));
    const lastPage = run("pdftotext", ["-enc", "UTF-8", "-f", String(pdf.pages), "-l", String(pdf.pages), longFile, "-"]).stdout;
    expect(lastPage).toMatch(new RegExp(`${pdf.pages}\\s*/\\s*${pdf.pages}`));
  });
});
