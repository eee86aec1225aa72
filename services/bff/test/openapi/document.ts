import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { skipWhen } from "@transcribe/platform/testing";

export const run = promisify(execFile);
export const repoRoot = path.resolve(import.meta.dirname, "../../../..");

export { type OpenApiDocument, type Operation, servedDocument } from "../../src/openapi-document.js";

/** Writes the document to a temporary file for a command-line tool; removed by the returned function. */
export async function documentFile(document: unknown): Promise<{ file: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "openapi-"));
  const file = path.join(dir, "openapi.json");
  await writeFile(file, JSON.stringify(document, null, 2));
  return { file, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * The PyPI and Go tools (scripts/openapi-tools.sh install, which CI runs). Missing tools skip
 * their tests, unless REQUIRE_OPENAPI_TOOLS=1 (CI), which makes the absence a failure.
 */
export const toolsDir = process.env.OPENAPI_TOOLS_DIR ?? path.join(homedir(), ".cache/transcribe/openapi-tools");
export const pythonTools = path.join(toolsDir, "venv/bin");
export const oasdiff = path.join(toolsDir, "bin/oasdiff");
export const requireTools = process.env.REQUIRE_OPENAPI_TOOLS === "1";

export function toolPresent(file: string): boolean {
  const here = existsSync(file);
  if (!here && requireTools) throw new Error(`${file} is missing: run scripts/openapi-tools.sh install (REQUIRE_OPENAPI_TOOLS=1)`);
  skipWhen("openapi-tools", !here && `${path.basename(file)} is not in ${toolsDir}`);
  return here;
}
