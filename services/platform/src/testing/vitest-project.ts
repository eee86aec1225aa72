import path from "node:path";
import { defineProject, type UserWorkspaceConfig } from "vitest/config";

/**
 * The Vitest project of a service workspace: a real PostgreSQL for the run (global
 * setup) and timeouts that fit integration tests.
 */
export function serviceTestProject(name: string): UserWorkspaceConfig {
  return defineProject({
    test: {
      name,
      globalSetup: [path.join(import.meta.dirname, "global-setup.ts")],
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  });
}
