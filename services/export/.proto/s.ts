import { parseSync } from "subtitle";
import mammoth from "mammoth";
import { readFileSync } from "node:fs";
const srt = readFileSync("/tmp/proto/out.srt", "utf8");
console.log(JSON.stringify(parseSync(srt).slice(0, 2)));
const vtt = readFileSync("/tmp/proto/out.vtt", "utf8");
console.log(JSON.stringify(parseSync(vtt).slice(0, 2)), parseSync(vtt).length);
const r = await mammoth.extractRawText({ buffer: readFileSync("/tmp/proto/out.docx") });
console.log(JSON.stringify(r.value.slice(0, 400)), r.messages);
