/*
 * Which writing system each character belongs to, at the granularity fonts care about:
 * one class per family of fonts (Chinese, Japanese and Korean share the CJK fonts).
 */

export const scriptClasses = [
  "latin",
  "greek",
  "cyrillic",
  "armenian",
  "georgian",
  "arabic",
  "hebrew",
  "syriac",
  "thaana",
  "devanagari",
  "bengali",
  "gurmukhi",
  "gujarati",
  "tamil",
  "telugu",
  "kannada",
  "malayalam",
  "sinhala",
  "thai",
  "lao",
  "khmer",
  "myanmar",
  "ethiopic",
  "cjk",
  "other",
  /** Spaces, punctuation, digits, combining marks: they take the class of the text around them. */
  "common",
] as const;
export type ScriptClass = (typeof scriptClasses)[number];

export const rightToLeftClasses: ReadonlySet<ScriptClass> = new Set(["arabic", "hebrew", "syriac", "thaana"]);

const tests: Array<[RegExp, ScriptClass]> = [
  [/\p{Script=Latin}/u, "latin"],
  [/\p{Script=Cyrillic}/u, "cyrillic"],
  [/\p{Script=Greek}/u, "greek"],
  [/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]/u, "cjk"],
  [/\p{Script=Arabic}/u, "arabic"],
  [/\p{Script=Hebrew}/u, "hebrew"],
  [/\p{Script=Devanagari}/u, "devanagari"],
  [/\p{Script=Thai}/u, "thai"],
  [/\p{Script=Armenian}/u, "armenian"],
  [/\p{Script=Georgian}/u, "georgian"],
  [/\p{Script=Bengali}/u, "bengali"],
  [/\p{Script=Gurmukhi}/u, "gurmukhi"],
  [/\p{Script=Gujarati}/u, "gujarati"],
  [/\p{Script=Tamil}/u, "tamil"],
  [/\p{Script=Telugu}/u, "telugu"],
  [/\p{Script=Kannada}/u, "kannada"],
  [/\p{Script=Malayalam}/u, "malayalam"],
  [/\p{Script=Sinhala}/u, "sinhala"],
  [/\p{Script=Lao}/u, "lao"],
  [/\p{Script=Khmer}/u, "khmer"],
  [/\p{Script=Myanmar}/u, "myanmar"],
  [/\p{Script=Ethiopic}/u, "ethiopic"],
  [/\p{Script=Syriac}/u, "syriac"],
  [/\p{Script=Thaana}/u, "thaana"],
  // Common and Inherited in Unicode's terms: shared punctuation, digits, symbols, marks.
  [/[\p{Script=Common}\p{Script=Inherited}]/u, "common"],
];

const cache = new Map<number, ScriptClass>();

export function scriptClassOf(cp: number): ScriptClass {
  if (cp < 0x80) return (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) ? "latin" : "common";
  let found = cache.get(cp);
  if (found === undefined) {
    const char = String.fromCodePoint(cp);
    found = tests.find(([test]) => test.test(char))?.[1] ?? "other";
    cache.set(cp, found);
  }
  return found;
}

export interface ScriptRun {
  text: string;
  script: ScriptClass;
}

/**
 * Splits text into runs of one script. Common characters (spaces, punctuation, digits)
 * join the run before them, or the first run when they lead, so "Привет, мир!" is one
 * Cyrillic run and "Hello 你好" is a Latin run "Hello " then a CJK run.
 */
export function scriptRuns(text: string): ScriptRun[] {
  const runs: ScriptRun[] = [];
  let current: ScriptRun | undefined;
  let leading = "";
  for (const char of text) {
    const script = scriptClassOf(char.codePointAt(0)!);
    if (script === "common") {
      if (current) current.text += char;
      else leading += char;
      continue;
    }
    if (current && current.script === script) {
      current.text += char;
      continue;
    }
    current = { text: leading + char, script };
    leading = "";
    runs.push(current);
  }
  if (leading) runs.push({ text: leading, script: "common" });
  return runs;
}

/** The first character that belongs to a script decides the direction of a paragraph (bidi rules P2–P3). */
export function isRightToLeftParagraph(text: string): boolean {
  for (const char of text) {
    const script = scriptClassOf(char.codePointAt(0)!);
    if (script !== "common") return rightToLeftClasses.has(script);
  }
  return false;
}
