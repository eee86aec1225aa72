import { writeFileSync } from "node:fs";
import { loadFontSet, renderExport, exportFormats, renderSrt, renderVtt, renderTxt } from "../src/domain/index.js";
import { fixtureTranscript } from "../test/fixtures/transcript.js";
const fonts = loadFontSet();
console.log(renderSrt(fixtureTranscript));
console.log(renderVtt(fixtureTranscript).slice(0, 300));
console.log(renderTxt(fixtureTranscript, { includeTimestamps: true }));
for (const f of exportFormats) {
  const t = performance.now();
  const r = await renderExport(fixtureTranscript, f, { includeTimestamps: true }, { fonts });
  writeFileSync(`/tmp/proto/out.${f}`, r.data);
  console.log(f, r.data.length, (performance.now() - t).toFixed(0), "ms", r.missingGlyphs);
}
