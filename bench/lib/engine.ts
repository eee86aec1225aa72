import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";

/*
 * Where the speech engine and its weights are (the same defaults as the worker's
 * config), and the bare engine (bare_whisper.py) as a process the benchmarks talk to.
 */

const cache = path.join(homedir(), ".cache", "transcribe");
export const whisperPython = process.env.WHISPER_PYTHON ?? path.join(cache, "engine-venv", "bin", "python");
export const modelsDir = process.env.WHISPER_MODELS_DIR ?? path.join(cache, "models");

export function modelDir(name: string): string {
  const dir = path.join(modelsDir, name);
  if (!existsSync(path.join(dir, "model.bin"))) {
    throw new Error(`no Whisper model "${name}" in ${modelsDir} (deploy/models/fetch-models.sh ${name}; or set WHISPER_MODELS_DIR)`);
  }
  return dir;
}

/** Every model in the models directory with the size of its weights, largest first. */
export function installedModels(): Array<{ name: string; bytes: number }> {
  if (!existsSync(modelsDir)) return [];
  return readdirSync(modelsDir)
    .filter((name) => existsSync(path.join(modelsDir, name, "model.bin")))
    .map((name) => ({ name, bytes: statSync(path.join(modelsDir, name, "model.bin")).size }))
    .sort((a, b) => b.bytes - a.bytes);
}

export interface BareRun {
  seconds: number;
  cpu_seconds: number;
  max_rss_mb: number;
  audio_seconds: number;
  language: string;
  text: string;
}

/** faster-whisper with one model loaded, outside the product. */
export class BareEngine {
  private constructor(
    private readonly child: ChildProcessWithoutNullStreams,
    private readonly lines: AsyncIterator<string>,
    readonly importSeconds: number,
    readonly loadSeconds: number,
    readonly rssAfterLoadMb: number,
  ) {}

  static async start(options: { model: string; threads: number; beamSize?: number; computeType?: string }): Promise<BareEngine> {
    const script = path.join(import.meta.dirname, "bare_whisper.py");
    const child = spawn(
      whisperPython,
      [
        "-u",
        script,
        "--model-dir",
        modelDir(options.model),
        "--threads",
        String(options.threads),
        "--beam-size",
        String(options.beamSize ?? 5),
        "--compute-type",
        options.computeType ?? "int8",
      ],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const first = await lines.next();
    if (first.done) throw new Error(`the bare engine exited before loading ${options.model}:\n${stderr}`);
    const loaded = JSON.parse(first.value) as { import_seconds: number; load_seconds: number; max_rss_mb: number };
    return new BareEngine(child, lines, loaded.import_seconds, loaded.load_seconds, loaded.max_rss_mb);
  }

  async transcribe(audio: string, language: string | null = "en"): Promise<BareRun> {
    this.child.stdin.write(`${JSON.stringify({ op: "transcribe", audio, language })}\n`);
    const next = await this.lines.next();
    if (next.done) throw new Error("the bare engine exited");
    return JSON.parse(next.value) as BareRun;
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.stdin.end();
    await exited;
  }
}
