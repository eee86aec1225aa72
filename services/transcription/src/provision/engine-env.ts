import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { type ProgressSink, ProvisionError } from "./progress.js";
import { findPython, runCommand } from "./python.js";

/** The engine's pinned requirements (faster-whisper and its wheels). */
export const requirementsFile = path.resolve(import.meta.dirname, "../../engine/requirements.txt");

/** Default place of the engine's virtual environment: the user's cache, shared by every checkout. */
export const defaultVenvDir = path.join(homedir(), ".cache", "transcribe", "engine-venv");

export function venvPython(venvDir: string): string {
  return process.platform === "win32" ? path.join(venvDir, "Scripts", "python.exe") : path.join(venvDir, "bin", "python");
}

const STAMP = ".requirements.sha256";

async function requirementsHash(file: string): Promise<string> {
  return createHash("sha256").update(await readFile(file)).digest("hex");
}

/** True when the venv exists and was made from the current requirements.txt. */
export async function engineEnvCurrent(venvDir: string, requirements = requirementsFile): Promise<boolean> {
  if (!existsSync(venvPython(venvDir))) return false;
  const stamp = await readFile(path.join(venvDir, STAMP), "utf8").catch(() => "");
  return stamp.trim() === (await requirementsHash(requirements));
}

export interface EngineEnvOptions {
  venvDir?: string;
  requirements?: string;
  /** A Python to build from instead of searching (PYTHON). */
  python?: readonly string[] | undefined;
  onProgress?: ProgressSink;
}

/**
 * Makes the engine's venv when it is missing or requirements.txt changed (its sha256 is
 * kept in the venv), and returns its interpreter (WHISPER_PYTHON). The one implementation
 * behind `npm start`, `engine/setup.sh`, the pre-provisioning command and CI.
 */
export async function ensureEngineEnv(options: EngineEnvOptions = {}): Promise<string> {
  const venvDir = options.venvDir ?? defaultVenvDir;
  const requirements = options.requirements ?? requirementsFile;
  const report = options.onProgress ?? (() => {});
  const python = venvPython(venvDir);
  const want = await requirementsHash(requirements);
  if (await engineEnvCurrent(venvDir, requirements)) return python;

  report({ step: "python", message: "looking for Python 3.9+" });
  let base = options.python;
  if (!base) {
    const found = await findPython();
    if ("problem" in found) throw new ProvisionError(found.problem);
    base = found.found.command;
    report({ step: "python", message: `using ${base.join(" ")} ${found.found.version}` });
  }
  await mkdir(path.dirname(venvDir), { recursive: true });
  report({ step: "engine", message: `creating the engine's Python environment in ${venvDir}` });
  const venv = await runCommand([...base, "-m", "venv", venvDir], { timeoutMs: 5 * 60_000 });
  if (venv.code !== 0) {
    throw new ProvisionError(
      `'${base.join(" ")} -m venv ${venvDir}' failed (${lastLine(venv.stderr) || venv.error?.message}); on Debian/Ubuntu install python3-venv (apt-get install python3-venv)`,
    );
  }
  const packages = (await readFile(requirements, "utf8")).split("\n").filter((l) => /^[A-Za-z0-9]/.test(l)).length;
  let collected = 0;
  report({ step: "engine", message: `installing the speech engine's Python packages (faster-whisper, ctranslate2; about 120 MB)`, done: 0, total: packages });
  const install = await runCommand(
    [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--progress-bar", "off", "-r", requirements],
    {
      timeoutMs: 30 * 60_000,
      onLine: (line) => {
        const match = /^(Collecting|Downloading) (\S+)/.exec(line.trim());
        if (match?.[1] === "Collecting") collected = Math.min(packages, collected + 1);
        if (match) report({ step: "engine", message: `installing Python packages: ${collected} of ${packages} (${match[2]})`, done: collected, total: packages });
      },
    },
  );
  if (install.code !== 0) {
    throw new ProvisionError(
      `installing the engine's packages failed (pip: ${lastLine(install.stderr) || install.error?.message}); check that PyPI (or your pip index, PIP_INDEX_URL) is reachable, then npm start again`,
    );
  }
  const check = await runCommand([python, "-c", "import faster_whisper, ctranslate2; print(faster_whisper.__version__, ctranslate2.__version__)"], {
    timeoutMs: 120_000,
  });
  if (check.code !== 0) throw new ProvisionError(`the engine's packages do not load: ${lastLine(check.stderr)}`);
  const [fw, ct] = check.stdout.trim().split(" ");
  report({ step: "engine", message: `speech engine installed: faster-whisper ${fw}, ctranslate2 ${ct}`, done: packages, total: packages });
  await writeFile(path.join(venvDir, STAMP), `${want}\n`);
  return python;
}

function lastLine(text: string): string {
  return text.trim().split("\n").filter(Boolean).pop() ?? "";
}
