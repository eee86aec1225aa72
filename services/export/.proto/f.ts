import { loadFontSet } from "../src/domain/fonts.js";
let t = performance.now();
const set = loadFontSet();
console.log("ms", performance.now() - t, set.describe(), set.missingScripts());
const c = set.chooser("ja");
console.log(c.split("你好 日本語", "cjk").map(p => [p.text, p.face.source]));
console.log(c.split("Hello ✓ →", "latin").map(p => [p.text, p.face.source]));
console.log(c.split("مرحبا 2024", "arabic").map(p => [p.text, p.face.source]));
try { loadFontSet({ files: ["/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf#Nope"] }) } catch (e) { console.log(String(e)) }
try { loadFontSet({ dir: "/tmp" }) } catch (e) { console.log(String(e)) }
try { loadFontSet({ dir: "/nonexist" }) } catch (e) { console.log(String(e)) }
