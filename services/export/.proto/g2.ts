import { loadFontSet } from "../src/domain/fonts.js";
const set = loadFontSet();
const c = set.chooser();
console.log(c.split("abc ✓ 中", "latin").map(p => [p.text, p.face.source.split("/").pop()]));
console.log(c.order("latin").preferred.map(f => f.source.split("/").pop()));
