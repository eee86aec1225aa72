import type { Transcript, TranscriptSegment, TranscriptWord } from "@transcribe/export/domain";

/*
 * A synthetic transcript shaped like a Whisper result with word timestamps: segments of
 * 6 to 20 words, a little silence between them, words timed inside their segment. A
 * fixed seed makes every run render the same input.
 */

const ENGLISH = (
  "the of and to a in that is was he for it with as his on be at by I this had not are but from or have an they which " +
  "one you were her all she there would their we him been has when who will more no if out so said what up its about " +
  "into than them can only other new some could time these two may then do first any my now such like our over man me " +
  "even most made after also did many before must through back years where much your way well down should because each " +
  "just those people how too little state good very make world still own see men work long get here between both life " +
  "being under never day same another know while last might us great old year off come since against go came right used " +
  "take three transcription meeting budget quarter customer product release interview question answer research"
).split(" ");

/** One sentence per script the exports support, cut into words for the multilingual workload. */
const MULTILINGUAL = [
  "Grüße aus München, die Größe der Brücke ist überwältigend, sagte Jürgen Müller heute Abend.",
  "Сегодня мы говорим о погоде в Москве и о жизни в большом городе, где живут миллионы людей.",
  "大家好 今天 我们 讨论 人工智能 和 语音识别 技术 的 未来 发展 我们 希望 这个 节目 对 大家 有 帮助",
  "こんにちは 東京 から お送り して います 今日 は とても 良い 天気 です ね 皆さん は いかが です か",
  "مرحبا بكم في برنامجنا اليوم نتحدث عن الذكاء الاصطناعي وتقنيات التعرف على الكلام في هذا العام",
  "Γειά σου κόσμε, σήμερα μιλάμε για την τεχνητή νοημοσύνη και την αναγνώριση ομιλίας.",
  "שלום עולם, היום אנחנו מדברים על בינה מלאכותית ועל זיהוי דיבור בשנה הזאת.",
  "Hello and welcome back to our show about speech recognition and the future of artificial intelligence.",
].map((sentence) => sentence.split(" "));

const SYLLABLES = "ka ri mo ten sal vor lin dra pe qua ston mir bel fa gon tri us al en ver sha pol nek rum bi do".split(" ");

/**
 * The common words above, then invented ones: a two-hour recording uses some 3,000
 * distinct words, and caches keyed by word (fontkit layouts, width tables) must not
 * look better than they would on real speech.
 */
function vocabulary(size: number, random: () => number): string[] {
  const words = new Set(ENGLISH);
  while (words.size < size) {
    const length = 2 + Math.floor(random() * 3);
    words.add(Array.from({ length }, () => SYLLABLES[Math.floor(random() * SYLLABLES.length)]!).join(""));
  }
  return [...words];
}

/** Index into a vocabulary with Zipf's law (exponent 1), as word frequencies in speech roughly follow. */
function zipfSampler(size: number, random: () => number): () => number {
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= size; rank++) {
    total += 1 / rank;
    cumulative.push(total);
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = size - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (cumulative[middle]! < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

export interface SyntheticOptions {
  segments: number;
  words: number;
  durationSeconds: number;
  multilingual?: boolean;
  seed?: number;
}

export function syntheticTranscript(options: SyntheticOptions): Transcript {
  // mulberry32: small, fast, and the same sequence on every machine.
  let state = options.seed ?? 42;
  const random = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // Words per segment around the average, summing to exactly options.words.
  const counts: number[] = [];
  let remaining = options.words;
  for (let i = 0; i < options.segments; i++) {
    const left = options.segments - i;
    const average = remaining / left;
    const count = i === options.segments - 1 ? remaining : Math.max(1, Math.round(average * (0.5 + random())));
    counts.push(Math.min(count, remaining - (left - 1)));
    remaining -= counts[i]!;
  }
  const words = vocabulary(8_000, random);
  const pick = zipfSampler(words.length, random);
  const slot = options.durationSeconds / options.segments;
  const segments: TranscriptSegment[] = counts.map((count, id) => {
    const start = id * slot + random() * 0.3;
    const end = (id + 1) * slot - random() * 0.3;
    const source = options.multilingual ? MULTILINGUAL[id % MULTILINGUAL.length]! : undefined;
    const tokens = Array.from({ length: count }, (_, k) =>
      source ? source[k % source.length]! : words[pick()]!,
    );
    if (!source && tokens[0]) tokens[0] = tokens[0][0]!.toUpperCase() + tokens[0].slice(1);
    const step = (end - start) / count;
    const timed: TranscriptWord[] = tokens.map((token, k) => ({
      word: k === 0 ? token : ` ${token}`,
      start: round(start + k * step),
      end: round(start + (k + 0.9) * step),
      probability: round(0.6 + random() * 0.4),
    }));
    return { id, start: round(start), end: round(end), text: `${tokens.join(" ")}${source ? "" : "."}`, words: timed };
  });
  return {
    id: "00000000-0000-4000-8000-000000000000",
    title: options.multilingual ? "Synthetic multilingual recording" : "Synthetic two-hour recording",
    sourceFileName: "recording.mp3",
    language: options.multilingual ? "de" : "en",
    model: "whisper-large-v3-turbo",
    createdAt: new Date("2025-01-01T00:00:00Z"),
    duration: options.durationSeconds,
    text: segments.map((segment) => segment.text).join(" "),
    segments,
    // Two voices taking turns every few segments, so the rttm export has turns to write.
    speakers: [
      { id: "S1", name: "Ada Lovelace" },
      { id: "S2", name: "S2" },
    ],
    speakerTurns: segments.map((segment) => ({ start: segment.start, end: segment.end, speaker: Math.floor(segment.id / 3) % 2 ? "S2" : "Ada Lovelace" })),
  };
}

const round = (value: number) => Math.round(value * 1000) / 1000;
