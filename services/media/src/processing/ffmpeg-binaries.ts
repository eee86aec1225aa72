import { spawn } from "node:child_process";
import { accessSync, chmodSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/**
 * Which ffmpeg and ffprobe media runs (decision 0019): FFMPEG_PATH / FFPROBE_PATH when
 * set (they must work: an operator who named a binary wants that one), else the system's
 * when it actually runs, else the static build shipped inside the npm packages
 * `@ffmpeg-installer/<platform>` / `@ffprobe-installer/<platform>` (the binary is in the
 * package tarball, so `npm install` works offline from a mirror and on air-gapped hosts).
 */

export type ToolName = "ffmpeg" | "ffprobe";
export type ToolSource = "FFMPEG_PATH" | "FFPROBE_PATH" | "system" | "bundled";

export interface ChosenTool {
  path: string;
  source: ToolSource;
  /** The first line of `-version`. */
  version: string;
}

export const INSTALL_HINT =
  "install FFmpeg (Debian/Ubuntu: apt-get install ffmpeg; macOS: brew install ffmpeg; Windows: winget install ffmpeg) " +
  "or point FFMPEG_PATH and FFPROBE_PATH at the binaries";

/** Thrown when no usable binary is found, with what to install. */
export class MissingToolError extends Error {
  override readonly name = "MissingToolError";
}

const require = createRequire(import.meta.url);

/** The binary inside this platform's npm package, or undefined when npm did not install one. */
export function bundledPath(tool: ToolName, platform = process.platform, arch = process.arch): string | undefined {
  let packageJson: string;
  try {
    packageJson = require.resolve(`@${tool}-installer/${platform}-${arch}/package.json`);
  } catch {
    return undefined;
  }
  const binary = path.join(path.dirname(packageJson), platform === "win32" ? `${tool}.exe` : tool);
  try {
    statSync(binary);
  } catch {
    return undefined;
  }
  if (platform !== "win32") ensureExecutable(binary);
  return binary;
}

/**
 * The packages' only install script is `chmod u+x`; where npm did not run it (scripts not
 * allowed), do it here, once, if node_modules is writable.
 */
function ensureExecutable(binary: string): void {
  try {
    accessSync(binary, constants.X_OK);
  } catch {
    try {
      chmodSync(binary, statSync(binary).mode | 0o111);
    } catch {
      // Read-only install: the version check below reports it.
    }
  }
}

/** First line of `<binary> -version`; rejects when it does not run or exits non-zero. */
export function toolVersion(binary: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ["-hide_banner", "-version"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d.length < 4096 ? d : ""));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err = (err + d).slice(-1024)));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      const first = (out.split("\n")[0] ?? "").replace(/\s+Copyright.*$/, "").trim();
      if (code === 0 && /version/i.test(first)) return resolve(first);
      reject(new Error(signal ? `stopped by ${signal}` : `exited with ${code}${err.trim() ? `: ${err.trim().split("\n").pop()}` : ""}`));
    });
  });
}

export interface ToolSources {
  /** FFMPEG_PATH / FFPROBE_PATH. */
  configured?: string | undefined;
  /** The command looked up on PATH (default: the tool's name). */
  system?: string | undefined;
  /** The bundled binary (default: from the npm package); null disables it (tests). */
  bundled?: string | null | undefined;
}

/** Picks one tool; `problems` collects why each candidate was passed over. */
export async function chooseTool(tool: ToolName, sources: ToolSources = {}): Promise<ChosenTool> {
  const variable: ToolSource = tool === "ffmpeg" ? "FFMPEG_PATH" : "FFPROBE_PATH";
  if (sources.configured) {
    try {
      return { path: sources.configured, source: variable, version: await toolVersion(sources.configured) };
    } catch (error) {
      throw new MissingToolError(
        `media needs ffmpeg and ffprobe, but ${tool} ("${sources.configured}": ${(error as Error).message}) could not be run: ${INSTALL_HINT}`,
      );
    }
  }
  const problems: string[] = [];
  const system = sources.system ?? tool;
  try {
    return { path: system, source: "system", version: await toolVersion(system) };
  } catch (error) {
    problems.push(`"${system}": ${(error as Error).message}`);
  }
  const bundled = sources.bundled === undefined ? bundledPath(tool) : sources.bundled;
  if (bundled) {
    try {
      return { path: bundled, source: "bundled", version: await toolVersion(bundled) };
    } catch (error) {
      problems.push(`bundled "${bundled}": ${(error as Error).message}`);
    }
  } else {
    problems.push(`no @${tool}-installer/${process.platform}-${process.arch} package installed`);
  }
  throw new MissingToolError(`media needs ffmpeg and ffprobe, but ${tool} (${problems.join("; ")}) could not be run: ${INSTALL_HINT}`);
}

export async function chooseTools(env: { FFMPEG_PATH?: string | undefined; FFPROBE_PATH?: string | undefined }) {
  const [ffmpeg, ffprobe] = await Promise.all([
    chooseTool("ffmpeg", { configured: env.FFMPEG_PATH }),
    chooseTool("ffprobe", { configured: env.FFPROBE_PATH }),
  ]);
  return { ffmpeg, ffprobe };
}
