import { loadFontSet, renderExport, exportFormats } from "../src/domain/index.js";
import { syntheticTranscript } from "../../../bench/exports-transcript.js";
const fonts = loadFontSet();
for (const multilingual of [false, true]) {
  const t0 = syntheticTranscript({ segments: 1500, words: 20000, durationSeconds: 7200, multilingual });
  console.log("words", t0.segments.reduce((s, x) => s + x.words.length, 0));
  for (const f of process.argv[2] ? [process.argv[2] as any] : exportFormats) {
    const times = [];
    let size = 0;
    for (let i = 0; i < 4; i++) {
      const t = performance.now();
      const r = await renderExport(t0, f, { includeTimestamps: true }, { fonts });
      times.push(performance.now() - t); size = r.data.length;
    }
    console.log(multilingual ? "multi" : "en", f, size, times.map(t => t.toFixed(0)).join(" "), "rss", (process.memoryUsage().rss/1e6).toFixed(0));
  }
}
const t1 = syntheticTranscript({ segments: 1500, words: 20000, durationSeconds: 7200 });
console.log("distinct", new Set(t1.segments.flatMap(s => s.words.map(w => w.word.trim()))).size);
