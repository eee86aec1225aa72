import { loadFontSet, renderExport } from "../src/domain/index.js";
import { syntheticTranscript } from "../../../bench/exports-transcript.js";
const fonts = loadFontSet();
const multilingual = process.argv[3] === "multi";
const t0 = syntheticTranscript({ segments: 1500, words: 20000, durationSeconds: 7200, multilingual });
const f = (process.argv[2] ?? "pdf") as any;
for (let i = 0; i < 6; i++) {
  const t = performance.now();
  await renderExport(t0, f, { includeTimestamps: true }, { fonts });
  console.log(f, (performance.now() - t).toFixed(0));
}
