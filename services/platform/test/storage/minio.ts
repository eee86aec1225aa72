import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { skipWhen } from "../../src/testing/skips.js";
import { freePort } from "../../src/testing/index.js";

const run = promisify(execFile);
const script = path.resolve(import.meta.dirname, "../../../../deploy/minio/minio.sh");

export interface MinioServer {
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

export type MinioAvailability = { ok: true } | { ok: false; reason: string };

/**
 * A real MinIO is needed for the S3 adapter's tests. It is built once by
 * deploy/minio/minio.sh (go install from the module proxy) and cached; when it has not
 * been built the tests are skipped with the reason printed, except in CI with
 * REQUIRE_MINIO=1, where a missing server is a failure.
 */
export async function minioAvailability(): Promise<MinioAvailability> {
  const required = process.env.CI === "true" && process.env.REQUIRE_MINIO === "1";
  let reason: string | undefined;
  if (!existsSync(script)) reason = `${script} is missing`;
  else {
    try {
      await run(script, ["path"]);
    } catch {
      reason = "MinIO is not built on this machine (run deploy/minio/minio.sh build once, about 10-15 minutes)";
    }
  }
  if (!reason) return { ok: true };
  if (required) throw new Error(`REQUIRE_MINIO=1 in CI but ${reason}`);
  skipWhen("minio", reason);
  process.stdout.write(`[skipped] S3 tests against MinIO: ${reason}\n`);
  return { ok: false, reason };
}

/** A private MinIO on free ports with its own data directory; `env` reaches the server (notification targets). */
export async function startMinio(env: Record<string, string> = {}): Promise<MinioServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "minio-test-"));
  const port = await freePort();
  const consolePort = await freePort();
  const settings = {
    ...process.env,
    ...env,
    MINIO_DATA_DIR: dataDir,
    MINIO_PORT: String(port),
    MINIO_CONSOLE_PORT: String(consolePort),
    MINIO_ROOT_USER: "transcribe-test",
    MINIO_ROOT_PASSWORD: "transcribe-test-secret",
  };
  await run(script, ["start"], { env: settings, timeout: 120_000 });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId: settings.MINIO_ROOT_USER,
    secretAccessKey: settings.MINIO_ROOT_PASSWORD,
    async stop() {
      await run(script, ["stop"], { env: settings, timeout: 60_000 });
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
