import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: ["services/*", "deploy/embedded", "web"],
    reporters: ["default", "./scripts/summary-reporter.ts"],
  },
});
