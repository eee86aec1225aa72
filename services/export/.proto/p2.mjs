import { createRequire } from "node:module";
import fs from "node:fs";
const require = createRequire(import.meta.url);
const PDFDocument = require("pdfkit");
const fontkit = createRequire(require.resolve("pdfkit"))("fontkit");
const which = process.argv[2];
const paths = { latin: ["/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"], cjk: ["/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc","NotoSansCJKsc-Regular"], ar:["/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf"], droid:["/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"]};
const [p, fam] = paths[which];
const font = fontkit.create(fs.readFileSync(p), fam);
const text = { latin: "Hello Grüße Привет", cjk: "你好世界 こんにちは 日本語", ar: "العالم مرحبا" , droid: "你好世界"}[which];
for (let i=0;i<4;i++){
let t = performance.now();
const doc = new PDFDocument({size:"A4", margin: 50});
const chunks=[]; doc.on("data", c=>chunks.push(c));
const done = new Promise(r=>doc.on("end", r));
doc.registerFont("f", font);
doc.font("f").fontSize(12).text(text, 50, 60, {lineBreak:false});
const t1 = performance.now();
doc.end(); await done;
console.log(which, "text ms", (t1-t).toFixed(1), "end ms", (performance.now()-t1).toFixed(1), Buffer.concat(chunks).length);
}
