import type { Reporter, TestModule } from "vitest/node";

/**
 * Prints one plain closing line, "tests: N passed, N failed, N skipped", which CI reads
 * to tell a run that tested something from one that ran nothing.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      // A file that failed outside any test (import error, failing beforeAll) counts as a
      // failure even when its tests only show up as skipped.
      const anyTestFailed = [...module.children.allTests()].some((t) => t.result().state === "failed");
      if (module.state() === "failed" && !anyTestFailed) failed++;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
