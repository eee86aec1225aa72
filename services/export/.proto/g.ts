import { loadFontSet } from "../src/domain/fonts.js";
const set = loadFontSet();
for (const cp of [0x10fffd, 0x0378, 0xe000, 0x1fae8, 0x13000, 0x1d11e])
  console.log(cp.toString(16), set.faces.filter(f => f.covers(cp)).map(f => f.source.split("/").pop()));
