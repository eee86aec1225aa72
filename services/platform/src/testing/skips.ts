import { appendFileSync } from "node:fs";
import { expect } from "vitest";
import { type RecordedSkip, SKIPS_FILE_ENV, type SkipGroup } from "./skip-groups.js";

/**
 * Returns `reason` (so it reads `describe.skipIf(skipWhen("engine", problem))`), and when
 * there is one, records it for the summary with the test file that skips.
 */
export function skipWhen(group: SkipGroup, reason: string | undefined | false): string | undefined {
  if (!reason) return undefined;
  const file = process.env[SKIPS_FILE_ENV];
  if (file) {
    let testPath: string | undefined;
    try {
      testPath = expect.getState().testPath;
    } catch {
      testPath = undefined;
    }
    const line: RecordedSkip = { group, reason, file: testPath };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }
  return reason;
}
