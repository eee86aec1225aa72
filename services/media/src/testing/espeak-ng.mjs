// Speech synthesis for tests, benchmarks and browser journeys: the system's `espeak-ng`
// when it runs (CI installs it, so CI synthesizes exactly as before), else eSpeak NG
// compiled to WebAssembly from the npm package `espeak-ng` (a devDependency of media), so
// a fresh machine with only Node synthesizes the same kind of speech. Plain JavaScript so
// the journeys in web/e2e, run by `node` itself, use it too; `node espeak-ng.mjs <args>`
// takes espeak-ng's own arguments (what the Python benchmarks call).
import { execFile, execFileSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const SYSTEM = process.env.ESPEAK_NG_PATH || "espeak-ng";

/** @type {"system" | "wasm" | undefined} */
let source;

/** Which synthesizer runs: the system's espeak-ng when `espeak-ng --version` works, else the WASM build. */
export function espeakNgSource() {
  if (!source) {
    try {
      execFileSync(SYSTEM, ["--version"], { stdio: "ignore", timeout: 10_000 });
      source = "system";
    } catch {
      source = "wasm";
    }
  }
  return source;
}

/**
 * Runs espeak-ng with its command-line arguments; `-w <file>` writes the WAV there (the
 * only output the WASM build can hand back, so it is required when the system has none).
 */
export async function espeakNg(args) {
  if (espeakNgSource() === "system") {
    await run(SYSTEM, args, { maxBuffer: 1 << 26 });
    return;
  }
  const at = args.indexOf("-w");
  const target = at >= 0 ? args[at + 1] : undefined;
  if (!target) throw new Error("espeak-ng (WebAssembly build): -w <file> is required, the only output it can hand back");
  const inMemory = "/espeak-ng-out.wav";
  const { default: ESpeakNg } = await import("espeak-ng");
  const stderr = [];
  const instance = await ESpeakNg({
    arguments: args.map((arg, index) => (index === at + 1 ? inMemory : arg)),
    print: () => {},
    printErr: (line) => stderr.push(line),
  });
  let wav;
  try {
    wav = instance.FS.readFile(inMemory);
  } catch {
    throw new Error(`espeak-ng (WebAssembly build) wrote no audio for ${JSON.stringify(args)}${stderr.length ? `: ${stderr.join(" ")}` : ""}`);
  }
  await writeFile(path.resolve(target), wav);
}

/** espeakNg for synchronous callers: the WASM build then runs in a child `node` (this file as a command). */
export function espeakNgSync(args) {
  if (espeakNgSource() === "system") execFileSync(SYSTEM, args, { stdio: ["ignore", "ignore", "pipe"], maxBuffer: 1 << 26 });
  else execFileSync(process.execPath, [fileURLToPath(import.meta.url), ...args], { stdio: ["ignore", "ignore", "pipe"] });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  espeakNg(process.argv.slice(2)).catch((error) => {
    console.error(error.message);
    process.exit(1);
  });
}
