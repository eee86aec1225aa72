import { createRequire } from "node:module";
import fs from "node:fs";
const require = createRequire(import.meta.url);
const PDFDocument = require("pdfkit");
const fontkit = createRequire(require.resolve("pdfkit"))("fontkit");
let t = performance.now();
const latin = fontkit.openSync("/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf");
const arabic = fontkit.openSync("/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf");
const hebrew = fontkit.openSync("/usr/share/fonts/truetype/noto/NotoSansHebrew-Regular.ttf");
const cjkBuf = fs.readFileSync("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc");
const coll = fontkit.create(cjkBuf);
console.log("collection", coll.fonts?.map(f=>f.postscriptName));
const cjk = fontkit.create(cjkBuf, "NotoSansCJKsc-Regular");
console.log("load ms", performance.now()-t, cjk.postscriptName, cjk.hasGlyphForCodePoint(0x4e2d), latin.hasGlyphForCodePoint(0x4e2d));
t = performance.now();
for (let i=0;i<2;i++){
const doc = new PDFDocument({size:"A4", margin: 50, bufferPages: true});
const chunks=[]; doc.on("data", c=>chunks.push(c));
const done = new Promise(r=>doc.on("end", r));
doc.registerFont("latin", latin); doc.registerFont("ar", arabic); doc.registerFont("he", hebrew); doc.registerFont("cjk", cjk);
let y = 60;
doc.font("latin").fontSize(12).text("Hello Grüße Привет Γειά σου", 50, y, {lineBreak:false, baseline:"alphabetic"});
y+=20; doc.font("cjk").text("你好世界 こんにちは 日本語", 50, y, {lineBreak:false, baseline:"alphabetic"});
y+=20; doc.font("ar").text("العالم مرحبا", 50, y, {lineBreak:false, baseline:"alphabetic"}); // visual order words reversed
y+=20; doc.font("he").text("עולם שלום", 50, y, {lineBreak:false, baseline:"alphabetic"});
doc.end(); await done;
fs.writeFileSync("/tmp/proto/p1.pdf", Buffer.concat(chunks));
console.log("doc ms", performance.now()-t); t=performance.now();
}
