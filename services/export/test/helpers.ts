import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { skipWhen } from "@transcribe/platform/testing";
import { loadFontSet, type FontSet } from "../src/domain/index.js";

/** Whether a command-line tool runs here. */
export function hasTool(command: string): boolean {
  const result = spawnSync(command, ["-v"], { stdio: "ignore" });
  return !result.error;
}

/**
 * Checks that need poppler-utils or fonts are skipped on a machine without them, but
 * never in CI (CI is set): .ci/run installs both, so a missing one there is a failure.
 */
export const inCi = Boolean(process.env.CI);
export const popplerAvailable = hasTool("pdftotext") && hasTool("pdftoppm") && hasTool("pdffonts");
if (!inCi) skipWhen("pdf", !popplerAvailable && "poppler-utils is not installed");

let fonts: FontSet | undefined | null;
/** The fonts as found on this machine; undefined when there are none (and not in CI). */
export function machineFonts(): FontSet | undefined {
  if (fonts === undefined) {
    try {
      fonts = loadFontSet();
    } catch (error) {
      if (inCi) throw error;
      skipWhen("pdf", `no fonts for PDF exports (${(error as Error).message})`);
      fonts = null;
    }
  }
  return fonts ?? undefined;
}

/** Text without any whitespace, for comparing text that line breaking may have cut differently. */
export const squash = (text: string) => text.replace(/\s+/gu, "");

/** A PDF's text as pdftotext reads it, every run of whitespace one space. */
export async function pdfText(pdf: Uint8Array): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "export-pdf-text-"));
  try {
    const file = path.join(dir, "t.pdf");
    await writeFile(file, pdf);
    return spawnSync("pdftotext", ["-enc", "UTF-8", file, "-"], { encoding: "utf8" }).stdout.replace(/\s+/g, " ");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
