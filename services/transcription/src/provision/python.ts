import { spawn } from "node:child_process";

/** Python the engine's environment is made from (decision 0010: faster-whisper needs 3.9+). */
export const MIN_PYTHON: readonly [number, number] = [3, 9];

export interface FoundPython {
  /** The command and its leading arguments, e.g. ["py", "-3"]. */
  command: readonly string[];
  version: string;
}

/** Candidates in order: the usual names on Linux/macOS, then Windows' launcher. */
export const PYTHON_CANDIDATES: readonly (readonly string[])[] = [["python3"], ["python"], ["py", "-3"]];

/** What to install, per platform, when no usable Python is found. */
export function pythonInstallAdvice(platform: NodeJS.Platform = process.platform): string {
  const [major, minor] = MIN_PYTHON;
  const want = `Python ${major}.${minor}+ with venv`;
  if (platform === "darwin") return `install ${want}: brew install python3 (or the installer from python.org), then npm start again`;
  if (platform === "win32") return `install ${want}: winget install Python.Python.3.12 (or the installer from python.org), then npm start again`;
  return `install ${want}: apt-get install python3 python3-venv (Debian/Ubuntu), dnf install python3 (Fedora), then npm start again; or set WHISPER_PYTHON to a Python that has faster-whisper`;
}

/** Runs a command, resolving with its exit code and output (never rejects on a non-zero exit). */
export function runCommand(
  command: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; onLine?: (line: string) => void } = {},
): Promise<{ code: number | null; stdout: string; stderr: string; error?: Error }> {
  return new Promise((resolve) => {
    const [file, ...args] = command;
    const child = spawn(file!, args, { stdio: ["ignore", "pipe", "pipe"], env: options.env ?? process.env });
    let stdout = "";
    let stderr = "";
    let partial = "";
    const onData = (chunk: string, isErr: boolean) => {
      if (isErr) stderr = (stderr + chunk).slice(-64 * 1024);
      else stdout = (stdout + chunk).slice(-256 * 1024);
      if (options.onLine) {
        const lines = (partial + chunk).split(/\r?\n|\r/);
        partial = lines.pop() ?? "";
        for (const line of lines) if (line.trim()) options.onLine(line);
      }
    };
    child.stdout.setEncoding("utf8").on("data", (d: string) => onData(d, false));
    child.stderr.setEncoding("utf8").on("data", (d: string) => onData(d, true));
    const timer = options.timeoutMs ? setTimeout(() => child.kill("SIGKILL"), options.timeoutMs) : undefined;
    child.once("error", (error) => {
      if (timer) clearTimeout(timer);
      resolve({ code: null, stdout, stderr, error });
    });
    child.once("close", (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * The first candidate that runs, is at least MIN_PYTHON and can make a venv (Debian splits
 * `venv` into python3-venv; without it the engine cannot be set up, so it does not count).
 */
export async function findPython(
  candidates: readonly (readonly string[])[] = PYTHON_CANDIDATES,
): Promise<{ found: FoundPython } | { problem: string }> {
  const tried: string[] = [];
  for (const command of candidates) {
    const probe = await runCommand(
      [...command, "-c", "import sys, venv, ensurepip; print('%d.%d.%d' % sys.version_info[:3])"],
      { timeoutMs: 20_000 },
    );
    const name = command.join(" ");
    if (probe.error || probe.code === null) {
      tried.push(`${name}: not found`);
      continue;
    }
    if (probe.code !== 0) {
      const missingVenv = /No module named '?(venv|ensurepip)/.test(probe.stderr);
      tried.push(`${name}: ${missingVenv ? "has no venv module" : (probe.stderr.trim().split("\n").pop() ?? `exit ${probe.code}`)}`);
      continue;
    }
    const version = probe.stdout.trim();
    const [major = 0, minor = 0] = version.split(".").map(Number);
    if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
      tried.push(`${name}: ${version} is too old`);
      continue;
    }
    return { found: { command, version } };
  }
  return { problem: `Python ${MIN_PYTHON.join(".")}+ not found (${tried.join("; ")}): ${pythonInstallAdvice()}` };
}
