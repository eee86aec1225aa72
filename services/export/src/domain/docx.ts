import {
  AlignmentType,
  Document,
  Footer,
  HeadingLevel,
  Packer,
  PageNumber,
  Paragraph,
  TextRun,
  type IRunOptions,
} from "docx";
import { metadataLines } from "./metadata.js";
import { isRightToLeftParagraph, rightToLeftClasses, scriptRuns } from "./scripts.js";
import { formatClock } from "./time.js";
import { paragraphsOf, type RenderOptions, type Transcript } from "./transcript.js";

const GREY = "777777";

/**
 * Word document: the title, a line each for source file, language, model, date and
 * duration, then one paragraph per segment (with its start time when asked). Fonts are
 * left to the reader's Word or LibreOffice, which pick per script; runs of Arabic or
 * Hebrew are marked right-to-left (and their paragraphs too when they start with one),
 * and Chinese, Japanese and Korean runs carry their East Asian language so the right
 * glyph forms are chosen.
 */
export async function renderDocx(transcript: Transcript, options: RenderOptions = {}): Promise<Buffer> {
  const eastAsian = eastAsianLanguage(transcript.language);
  const children: Paragraph[] = [
    new Paragraph({
      heading: HeadingLevel.TITLE,
      bidirectional: isRightToLeftParagraph(transcript.title),
      children: runs(transcript.title, {}, eastAsian),
    }),
    ...metadataLines(transcript).map(
      ({ label, value }) =>
        new Paragraph({
          spacing: { after: 0 },
          children: [new TextRun({ text: `${label}: `, bold: true, color: GREY }), ...runs(value, {}, eastAsian)],
        }),
    ),
    new Paragraph({ spacing: { after: 120 }, border: { bottom: { style: "single", size: 4, color: "BBBBBB", space: 4 } } }),
  ];
  for (const paragraph of paragraphsOf(transcript)) {
    const stamp = options.includeTimestamps
      ? [new TextRun({ text: `[${formatClock(paragraph.start)}] `, color: GREY })]
      : [];
    children.push(
      new Paragraph({
        bidirectional: isRightToLeftParagraph(paragraph.text),
        spacing: { after: 120 },
        children: [
          ...stamp,
          ...(paragraph.turn ? [new TextRun({ text: `${paragraph.turn}: `, bold: true })] : []),
          ...runs(paragraph.text, {}, eastAsian),
        ],
      }),
    );
  }
  const document = new Document({
    title: transcript.title,
    ...(transcript.sourceFileName ? { subject: `Transcript of ${transcript.sourceFileName}` } : {}),
    creator: "Transcribe",
    description: "Transcript exported from Transcribe",
    sections: [
      {
        footers: {
          default: new Footer({
            children: [
              new Paragraph({
                alignment: AlignmentType.CENTER,
                children: [new TextRun({ children: [PageNumber.CURRENT, " / ", PageNumber.TOTAL_PAGES], color: GREY, size: 16 })],
              }),
            ],
          }),
        },
        children,
      },
    ],
  });
  return Packer.toBuffer(document);
}

/** Text as runs: one per stretch of right-to-left script, East Asian script, or anything else. */
function runs(text: string, style: IRunOptions, eastAsian: string): TextRun[] {
  const result: TextRun[] = [];
  let pending: { text: string; kind: "rtl" | "cjk" | "other"; lang?: string } | undefined;
  const flush = () => {
    if (!pending) return;
    const { kind } = pending;
    result.push(
      new TextRun({
        ...style,
        text: pending.text,
        ...(kind === "rtl" ? { rightToLeft: true } : {}),
        ...(kind === "cjk" ? { language: { eastAsia: pending.lang ?? eastAsian } } : {}),
      }),
    );
    pending = undefined;
  };
  for (const run of scriptRuns(text)) {
    const kind = rightToLeftClasses.has(run.script) ? "rtl" : run.script === "cjk" ? "cjk" : "other";
    const lang = kind === "cjk" ? cjkLanguageOf(run.text, eastAsian) : undefined;
    if (pending && pending.kind === kind && pending.lang === lang) {
      pending.text += run.text;
      continue;
    }
    flush();
    pending = { text: run.text, kind, ...(lang ? { lang } : {}) };
  }
  flush();
  return result;
}

function eastAsianLanguage(language: string | undefined): string {
  const code = (language ?? "").toLowerCase();
  if (code.startsWith("ja")) return "ja-JP";
  if (code.startsWith("ko")) return "ko-KR";
  if (/^zh-(tw|hant|hk|mo)/.test(code)) return "zh-TW";
  return "zh-CN";
}

/** Kana means Japanese and Hangul Korean, whatever the transcript's language. */
function cjkLanguageOf(text: string, fallback: string): string {
  if (/[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(text)) return "ja-JP";
  if (/\p{Script=Hangul}/u.test(text)) return "ko-KR";
  return fallback;
}
