import { startProduct } from "./lib/product.js";
import { treeCpu, processTree } from "./lib/proc.js";
import { readFileSync } from "node:fs";
const p = await startProduct({ env: { WHISPER_THREADS: "2" } });
console.log("healthy", p.healthySeconds);
await new Promise((r) => setTimeout(r, 5000));
const root = p.stack.child.pid!;
const snap = () => new Map(processTree(root).map((s) => [s.pid, s.ticks]));
const a = snap(); const c = treeCpu(root);
await new Promise((r) => setTimeout(r, 20000));
const b = snap();
console.log("idle cpu s over 20 s:", c.stop());
for (const [pid, t] of b) { const d = t - (a.get(pid) ?? 0); if (d > 0) { let cmd=""; try { cmd = readFileSync(`/proc/${pid}/cmdline`,"utf8").replace(/\0/g," ").slice(0,110);} catch {} console.log(d, pid, cmd); } }
await p.stop();
