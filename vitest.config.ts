import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["services/*", "deploy/embedded", "web", "tests/reliability", "charts"],
    reporters: ["default", "./scripts/summary-reporter.ts"],
  },
});
