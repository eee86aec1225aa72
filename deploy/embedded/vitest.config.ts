import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "embedded",
    testTimeout: 180_000,
    hookTimeout: 180_000,
  },
});
