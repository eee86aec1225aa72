/** Which synthesizer runs: the system's espeak-ng when it works, else the WebAssembly build. */
export function espeakNgSource(): "system" | "wasm";
/** Runs espeak-ng with its command-line arguments; `-w <file>` writes the WAV there. */
export function espeakNg(args: readonly string[]): Promise<void>;
/** espeakNg for synchronous callers. */
export function espeakNgSync(args: readonly string[]): void;
