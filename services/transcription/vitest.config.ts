import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "transcription",
    globalSetup: ["../platform/src/testing/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
