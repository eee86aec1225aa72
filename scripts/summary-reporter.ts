import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";
import { type RecordedSkip, SKIPS_FILE_ENV, skipGroups } from "@transcribe/platform/testing/skip-groups";

/**
 * Prints, after the run, one line per group of suites that skipped (what, why, and the
 * command that would run them; services/platform/src/testing/skips.ts), then one plain
 * closing line, "tests: N passed, N failed, N skipped", which CI reads to tell a run that
 * tested something from one that ran nothing.
 */
export default class SummaryReporter implements Reporter {
  private skipsDir: string | undefined;

  onInit(): void {
    // The test workers start after this and inherit the variable; they append their skips.
    this.skipsDir = mkdtempSync(path.join(tmpdir(), "transcribe-test-skips-"));
    const file = path.join(this.skipsDir, "skips.jsonl");
    writeFileSync(file, "");
    process.env[SKIPS_FILE_ENV] = file;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const skippedIn = new Map<string, number>();
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else {
          skipped++;
          skippedIn.set(module.moduleId, (skippedIn.get(module.moduleId) ?? 0) + 1);
        }
      }
      // A file that failed outside any test (import error, failing beforeAll) counts as a
      // failure even when its tests only show up as skipped.
      const anyTestFailed = [...module.children.allTests()].some((t) => t.result().state === "failed");
      if (module.state() === "failed" && !anyTestFailed) failed++;
    }
    const lines = this.skipLines(skippedIn);
    process.stdout.write(`\n${lines.map((l) => `${l}\n`).join("")}tests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }

  /** One line per skipped group, then the skipped tests no group accounts for, per file. */
  private skipLines(skippedIn: ReadonlyMap<string, number>): string[] {
    const file = process.env[SKIPS_FILE_ENV];
    const recorded: RecordedSkip[] = [];
    if (file) {
      for (const line of readFileSync(file, "utf8").split("\n")) if (line.trim()) recorded.push(JSON.parse(line) as RecordedSkip);
      if (this.skipsDir) rmSync(this.skipsDir, { recursive: true, force: true });
    }
    const groups = new Map<keyof typeof skipGroups, { reasons: Set<string>; files: Set<string> }>();
    for (const skip of recorded) {
      // A file that skipped nothing after all (its check was shared, its tests ran) does not count.
      if (skip.file && !skippedIn.has(skip.file)) continue;
      const group = groups.get(skip.group) ?? { reasons: new Set(), files: new Set() };
      group.reasons.add(skip.reason);
      if (skip.file) group.files.add(skip.file);
      groups.set(skip.group, group);
    }
    const relative = (f: string) => path.relative(process.cwd(), f);
    const lines = [...groups].map(([name, { reasons, files }]) => {
      const tests = [...files].reduce((n, f) => n + (skippedIn.get(f) ?? 0), 0);
      const { what, command } = skipGroups[name];
      const where = `${tests} test${tests === 1 ? "" : "s"} in ${files.size} file${files.size === 1 ? "" : "s"}`;
      return `skipped: ${what}, ${where}: ${[...reasons].join("; ")}. To run them: ${command}`;
    });
    const accounted = new Set([...groups.values()].flatMap((g) => [...g.files]));
    for (const [f, n] of skippedIn) {
      if (!accounted.has(f)) lines.push(`skipped: ${n} test${n === 1 ? "" : "s"} in ${relative(f)} (the file gives its reason above; no group recorded)`);
    }
    return lines;
  }
}
