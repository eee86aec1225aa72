/**
 * Every language Whisper knows (the tokenizer's list, in its order), with English names
 * for the language picker. `yue` (Cantonese) exists only from large-v3 on; the 99 before
 * it are what every multilingual Whisper model (tiny … large-v2) accepts.
 */
export const whisperLanguages = [
  ["en", "English"], ["zh", "Chinese"], ["de", "German"], ["es", "Spanish"], ["ru", "Russian"],
  ["ko", "Korean"], ["fr", "French"], ["ja", "Japanese"], ["pt", "Portuguese"], ["tr", "Turkish"],
  ["pl", "Polish"], ["ca", "Catalan"], ["nl", "Dutch"], ["ar", "Arabic"], ["sv", "Swedish"],
  ["it", "Italian"], ["id", "Indonesian"], ["hi", "Hindi"], ["fi", "Finnish"], ["vi", "Vietnamese"],
  ["he", "Hebrew"], ["uk", "Ukrainian"], ["el", "Greek"], ["ms", "Malay"], ["cs", "Czech"],
  ["ro", "Romanian"], ["da", "Danish"], ["hu", "Hungarian"], ["ta", "Tamil"], ["no", "Norwegian"],
  ["th", "Thai"], ["ur", "Urdu"], ["hr", "Croatian"], ["bg", "Bulgarian"], ["lt", "Lithuanian"],
  ["la", "Latin"], ["mi", "Maori"], ["ml", "Malayalam"], ["cy", "Welsh"], ["sk", "Slovak"],
  ["te", "Telugu"], ["fa", "Persian"], ["lv", "Latvian"], ["bn", "Bengali"], ["sr", "Serbian"],
  ["az", "Azerbaijani"], ["sl", "Slovenian"], ["kn", "Kannada"], ["et", "Estonian"], ["mk", "Macedonian"],
  ["br", "Breton"], ["eu", "Basque"], ["is", "Icelandic"], ["hy", "Armenian"], ["ne", "Nepali"],
  ["mn", "Mongolian"], ["bs", "Bosnian"], ["kk", "Kazakh"], ["sq", "Albanian"], ["sw", "Swahili"],
  ["gl", "Galician"], ["mr", "Marathi"], ["pa", "Punjabi"], ["si", "Sinhala"], ["km", "Khmer"],
  ["sn", "Shona"], ["yo", "Yoruba"], ["so", "Somali"], ["af", "Afrikaans"], ["oc", "Occitan"],
  ["ka", "Georgian"], ["be", "Belarusian"], ["tg", "Tajik"], ["sd", "Sindhi"], ["gu", "Gujarati"],
  ["am", "Amharic"], ["yi", "Yiddish"], ["lo", "Lao"], ["uz", "Uzbek"], ["fo", "Faroese"],
  ["ht", "Haitian Creole"], ["ps", "Pashto"], ["tk", "Turkmen"], ["nn", "Norwegian Nynorsk"], ["mt", "Maltese"],
  ["sa", "Sanskrit"], ["lb", "Luxembourgish"], ["my", "Burmese"], ["bo", "Tibetan"], ["tl", "Tagalog"],
  ["mg", "Malagasy"], ["as", "Assamese"], ["tt", "Tatar"], ["haw", "Hawaiian"], ["ln", "Lingala"],
  ["ha", "Hausa"], ["ba", "Bashkir"], ["jw", "Javanese"], ["su", "Sundanese"], ["yue", "Cantonese"],
] as const satisfies ReadonlyArray<readonly [string, string]>;

export type LanguageCode = (typeof whisperLanguages)[number][0];

/** The settings value that asks the engine to detect the language (stored result carries the detected one). */
export const AUTO_LANGUAGE = "auto";

export const languageNames: ReadonlyMap<string, string> = new Map(whisperLanguages);

/** All 100 codes (large-v3 and the cloud models). */
export const allLanguageCodes: readonly string[] = whisperLanguages.map(([code]) => code);
/** The 99 codes of multilingual Whisper models before large-v3 (no Cantonese). */
export const classicLanguageCodes: readonly string[] = allLanguageCodes.filter((c) => c !== "yue");

export function isLanguageCode(value: string): boolean {
  return languageNames.has(value);
}

/** ISO 639-3 codes (as ElevenLabs reports languages) of Whisper's languages. */
const iso639_3: Readonly<Record<string, string>> = {
  en: "eng", zh: "zho", de: "deu", es: "spa", ru: "rus", ko: "kor", fr: "fra", ja: "jpn", pt: "por", tr: "tur",
  pl: "pol", ca: "cat", nl: "nld", ar: "ara", sv: "swe", it: "ita", id: "ind", hi: "hin", fi: "fin", vi: "vie",
  he: "heb", uk: "ukr", el: "ell", ms: "msa", cs: "ces", ro: "ron", da: "dan", hu: "hun", ta: "tam", no: "nor",
  th: "tha", ur: "urd", hr: "hrv", bg: "bul", lt: "lit", la: "lat", mi: "mri", ml: "mal", cy: "cym", sk: "slk",
  te: "tel", fa: "fas", lv: "lav", bn: "ben", sr: "srp", az: "aze", sl: "slv", kn: "kan", et: "est", mk: "mkd",
  br: "bre", eu: "eus", is: "isl", hy: "hye", ne: "nep", mn: "mon", bs: "bos", kk: "kaz", sq: "sqi", sw: "swa",
  gl: "glg", mr: "mar", pa: "pan", si: "sin", km: "khm", sn: "sna", yo: "yor", so: "som", af: "afr", oc: "oci",
  ka: "kat", be: "bel", tg: "tgk", sd: "snd", gu: "guj", am: "amh", yi: "yid", lo: "lao", uz: "uzb", fo: "fao",
  ht: "hat", ps: "pus", tk: "tuk", nn: "nno", mt: "mlt", sa: "san", lb: "ltz", my: "mya", bo: "bod", tl: "tgl",
  mg: "mlg", as: "asm", tt: "tat", haw: "haw", ln: "lin", ha: "hau", ba: "bak", jw: "jav", su: "sun", yue: "yue",
};
const fromIso639_3 = new Map(Object.entries(iso639_3).map(([two, three]) => [three, two]));
const fromName = new Map(whisperLanguages.map(([code, name]) => [name.toLowerCase(), code as string]));

export function toIso639_3(code: string): string | undefined {
  return iso639_3[code];
}

/**
 * A Whisper code from what a provider reports: a Whisper code ("en"), an ISO 639-3 code
 * ("eng", ElevenLabs), or a language name ("English", "english": Groq, OpenAI).
 * Unknown values come back lower-cased as they are.
 */
export function normalizeLanguage(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const v = value.trim().toLowerCase();
  if (languageNames.has(v)) return v;
  if (v === "jv") return "jw";
  return fromIso639_3.get(v) ?? fromName.get(v) ?? (v === "norwegian nynorsk" ? "nn" : v);
}
