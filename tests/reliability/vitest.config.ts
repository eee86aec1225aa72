import { defineProject } from "vitest/config";

/**
 * Fault and load tests: each starts real PostgreSQL, real service processes and the real
 * speech engine of its own. They run one file at a time (each one alone loads the two
 * cores) and get long timeouts.
 */
export default defineProject({
  test: {
    name: "reliability",
    testTimeout: 900_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
