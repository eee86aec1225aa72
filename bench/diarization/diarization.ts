/**
 * Speaker diarization (issue 18, decision 0020): accuracy, speed, cost on top of
 * transcription, and memory on a long file, through the product's own adapter
 * (services/transcription/src/engines/local/diarizer.ts → engine/diarizer.py).
 *
 *   npm run bench:diarization [-- --smoke] [-- --long-minutes 60]
 *
 * 1. Synthetic two-speaker conversation (bench/diarization/conversation.ts: espeak-ng en-us
 *    pitched down vs its female variant pitched up, known turns) and a one-voice file: DER
 *    (missed + false alarm + confusion, 0.25 s collar), speakers found, CPU and wall time,
 *    for the default window step (0.8 s) and the cheaper 1.6 s.
 * 2. Cost on top of transcription: the same conversation transcribed by the bare engine
 *    (tiny.en and base, int8, beam 5, 2 threads), CPU seconds, diarization ÷ transcription.
 * 3. Real speech: the AMI excerpts of /work/shared/data/diarization (or DIARIZATION_DATA_DIR)
 *    against their RTTM, scored over 0–30 s.
 * 4. A long file (the conversation repeated to --long-minutes, default 60; 2 in smoke mode):
 *    peak RSS of the diarizer process, CPU time, speakers found.
 * Writes bench/results/diarization.json and the block between the diarization markers of
 * docs/benchmarks.md.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { diarizeFile, SPEAKER_WHEEL, type DiarizeOutput } from "@transcribe/transcription/engines/local/diarizer";
import { BareEngine, modelsDir, whisperPython } from "../lib/engine.js";
import { isSmoke, repoRoot, startRecording } from "../lib/results.js";
import { buildConversation, DIALOGUE } from "./conversation.js";
import { diarizationErrorRate, readRttm, type DerResult } from "./der.js";

const smoke = isSmoke();
const longArg = process.argv.indexOf("--long-minutes");
const longMinutes = longArg > 0 ? Number(process.argv[longArg + 1]) : smoke ? 2 : 60;
const weights = process.env.DIARIZATION_WEIGHTS ?? path.join(modelsDir, "speaker-encoder", SPEAKER_WHEEL);
const amiDir = process.env.DIARIZATION_DATA_DIR ?? "/work/shared/data/diarization";
if (!existsSync(weights)) throw new Error(`no speaker-encoder weights at ${weights} (deploy/models/fetch-models.sh speaker-encoder)`);

const recording = startRecording("diarization", smoke);
const signal = new AbortController().signal;
const run = (audioPath: string, step?: number, counts: { minSpeakers?: number; maxSpeakers?: number } = {}) =>
  diarizeFile({ python: whisperPython, weightsCandidates: [weights], step }, { audioPath, signal, ...counts });

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const r2 = (x: number) => Math.round(x * 100) / 100;

interface Scored {
  file: string;
  step: number;
  audioSeconds: number;
  der: DerResult;
  speakersFound: number;
  cpuSeconds: number;
  wallSeconds: number;
}

async function scored(file: string, audioPath: string, reference: ReturnType<typeof readRttm>, step: number, uem?: [number, number]): Promise<Scored> {
  const started = Date.now();
  const out: DiarizeOutput = await run(audioPath, step);
  const der = diarizationErrorRate(reference, out.turns, { collar: 0.25, ...(uem ? { uem } : {}) });
  return { file, step, audioSeconds: out.stats.duration, der, speakersFound: out.speakers.length, cpuSeconds: out.stats.cpu_seconds, wallSeconds: (Date.now() - started) / 1000 };
}

// 1. Synthetic.
const conversation = buildConversation();
const monologue = buildConversation({ lines: DIALOGUE.filter(([who]) => who === "A"), leadSilence: 1 });
const synthetic: Scored[] = [];
for (const step of [0.8, 1.6]) {
  synthetic.push(await scored("two voices (synthetic)", conversation.path, conversation.turns, step));
  synthetic.push(await scored("one voice (synthetic)", monologue.path, monologue.turns, step));
}

// 2. Cost on top of transcription (CPU seconds on the same file).
const transcription: Array<{ model: string; cpuSeconds: number; wallSeconds: number }> = [];
for (const model of ["tiny.en", "base"]) {
  if (!existsSync(path.join(modelsDir, model, "model.bin"))) continue;
  const engine = await BareEngine.start({ model, threads: 2, beamSize: 5 });
  try {
    const done = await engine.transcribe(conversation.path, "en");
    transcription.push({ model, cpuSeconds: done.cpu_seconds, wallSeconds: done.seconds });
  } finally {
    await engine.close();
  }
}

// 3. Real speech (AMI).
const real: Scored[] = [];
if (existsSync(amiDir)) {
  for (const wav of readdirSync(amiDir).filter((f) => f.endsWith(".wav")).sort()) {
    const rttm = path.join(amiDir, wav.replace(/\.wav$/, ".rttm"));
    if (!existsSync(rttm)) continue;
    for (const step of [0.8, 1.6]) real.push(await scored(wav.replace(/\.wav$/, ""), path.join(amiDir, wav), readRttm(readFileSync(rttm, "utf8")), step, [0, 30]));
  }
}

// 4. Long file.
const repeats = Math.ceil((longMinutes * 60) / conversation.duration);
const longPath = path.join(conversation.dir, "long.wav");
execFileSync("sox", [...Array.from({ length: repeats }, () => conversation.path), longPath]);
const longStarted = Date.now();
const longOut = await run(longPath);
const long = {
  minutes: r2(longOut.stats.duration / 60),
  peakRssMb: r2(longOut.stats.max_rss_mb),
  cpuSeconds: longOut.stats.cpu_seconds,
  wallSeconds: (Date.now() - longStarted) / 1000,
  windows: longOut.stats.windows,
  speakersFound: longOut.speakers.length,
  der: diarizationErrorRate(
    Array.from({ length: repeats }, (_, k) => conversation.turns.map((t) => ({ ...t, start: t.start + k * conversation.duration, end: t.end + k * conversation.duration }))).flat(),
    longOut.turns,
  ).der,
};

const result = await recording.finish({ synthetic, transcription, real, long, weights: path.basename(weights) });

// The docs block.
const two = synthetic.find((s) => s.step === 0.8 && s.file.startsWith("two"))!;
const row = (s: Scored) => [s.file, String(s.step), s.audioSeconds.toFixed(1), pct(s.der.der), pct(s.der.missed), pct(s.der.falseAlarm), pct(s.der.confusion), `${s.speakersFound} / ${s.der.referenceSpeakers}`, r2(s.cpuSeconds / s.audioSeconds).toString(), s.wallSeconds.toFixed(1)];
const header = "| file | step (s) | audio (s) | DER | missed | false alarm | confusion | speakers found / true | CPU s per audio s | wall (s) |\n|---|---|---|---|---|---|---|---|---|---|";
const costRows = transcription.map((t) => `| ${t.model} (int8, beam 5) | ${t.cpuSeconds.toFixed(1)} | ${two.cpuSeconds.toFixed(1)} | **+${Math.round((two.cpuSeconds / t.cpuSeconds) * 100)}%** |`);
const block = `<!-- diarization:start -->
## Speaker diarization (\`npm run bench:diarization\`)

Recorded ${result.date} on ${result.machine.cpu} (${result.machine.cores} cores), load average ${result.loadAverage.before.join(" ")} → ${result.loadAverage.after.join(" ")}
(a shared machine: wall times are inflated; CPU seconds are the load-independent figure). Engine: decision 0020
(Silero VAD + Resemblyzer's GE2E encoder in numpy + global average-linkage clustering), through the worker's adapter.
DER = (missed + false alarm + confusion) / reference speech, 0.25 s collar, overlap scored.

**Synthetic two-speaker recording** (espeak-ng en-us −300 cents vs en-us+f4 +200 cents, known turns; target DER ≤ 15%, right count) and one voice:

${header}
${synthetic.map((s) => `| ${row(s).join(" | ")} |`).join("\n")}

**Cost on top of transcription** (the two-speaker file, CPU seconds; target ≤ +30%):

| transcription | transcription CPU s | diarization CPU s (step 0.8) | diarization on top |
|---|---|---|---|
${costRows.join("\n")}

**Real speech** (AMI Meeting Corpus excerpts, 30 s each, human RTTM; overlapping speech counts as missed for a one-speaker-at-a-time diarizer):

${header}
${real.map((s) => `| ${row(s).join(" | ")} |`).join("\n")}

**Long file**: the two-speaker conversation repeated to ${long.minutes} minutes: peak RSS of the diarizer **${long.peakRssMb} MB**,
${long.cpuSeconds.toFixed(0)} CPU s (${r2(long.cpuSeconds / (long.minutes * 60))} CPU s per audio s), ${long.wallSeconds.toFixed(0)} s wall, ${long.windows} windows,
${long.speakersFound} speakers found, DER ${pct(long.der)}. Memory stays flat with length: audio is streamed in 60 s blocks and
only the embeddings (1 KiB per window) are kept; clustering runs on at most 2,000 of them.
<!-- diarization:end -->`;
const docs = path.join(repoRoot, "docs", "benchmarks.md");
if (!smoke) {
  const current = readFileSync(docs, "utf8");
  const marked = /<!-- diarization:start -->[\s\S]*?<!-- diarization:end -->/;
  writeFileSync(docs, marked.test(current) ? current.replace(marked, block) : `${current.trimEnd()}\n\n${block}\n`);
}
console.log(block);
