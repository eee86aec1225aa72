import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../db/embedded-postgres.js";
import { freePort } from "./free-port.js";

/**
 * Starts one real PostgreSQL for the whole test run (unless TEST_POSTGRES_URL points at
 * one already) and hands its URL to the tests through vitest's provide/inject.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.TEST_POSTGRES_URL;
  if (external) {
    project.provide("postgresBaseUrl", external.replace(/\/[^/]*$/, ""));
    return async () => {};
  }
  const root = path.resolve(import.meta.dirname, "../../../../.data");
  await mkdir(root, { recursive: true });
  const dir = await mkdtemp(path.join(root, "test-pg-"));
  const server = await startEmbeddedPostgres({
    dataDir: path.join(dir, "data"),
    port: await freePort(),
    persistent: false,
  });
  project.provide("postgresBaseUrl", server.baseUrl);
  return async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  };
}
