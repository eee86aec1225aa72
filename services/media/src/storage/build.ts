import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ConfigError, LocalObjectStorage, MIN_SIGNING_SECRET_BYTES, type ObjectStorage } from "@transcribe/platform";
import type { MediaConfig } from "../config.js";

/** The object store media works with, and how its changes become notifications. */
export type MediaStorage =
  | { kind: "local"; storage: LocalObjectStorage; bucket: string; close(): Promise<void> }
  | { kind: "s3"; storage: ObjectStorage; bucket: string; close(): Promise<void> };

/** The bucket name local notifications carry, so consumers can tell the stores apart. */
export const LOCAL_BUCKET = "local";

export async function buildStorage(config: MediaConfig): Promise<MediaStorage> {
  if (config.STORAGE === "local") {
    const rootDir = path.resolve(config.STORAGE_DIR ?? path.join(config.DATA_DIR, "storage"));
    const signingSecret = config.STORAGE_SIGNING_SECRET ?? (await localSecret(path.join(config.DATA_DIR, "secrets")));
    const storage = new LocalObjectStorage({ rootDir, publicBaseUrl: config.STORAGE_PUBLIC_URL, signingSecret });
    return { kind: "local", storage, bucket: LOCAL_BUCKET, close: async () => {} };
  }
  const problems: string[] = [];
  if (!config.S3_BUCKET) problems.push("S3_BUCKET: required when STORAGE=s3 (not set)");
  if (Boolean(config.S3_ACCESS_KEY_ID) !== Boolean(config.S3_SECRET_ACCESS_KEY)) {
    problems.push("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both or neither");
  }
  if (problems.length > 0 || !config.S3_BUCKET) throw new ConfigError(problems);
  // Loaded only in this mode: the SDK costs ~20 MB and ~0.4 s at start.
  const { S3ObjectStorage } = await import("@transcribe/platform/storage/s3");
  const storage = new S3ObjectStorage({
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
    forcePathStyle: config.S3_FORCE_PATH_STYLE,
    ...(config.S3_ENDPOINT ? { endpoint: config.S3_ENDPOINT } : {}),
    ...(config.S3_PUBLIC_ENDPOINT ? { publicEndpoint: config.S3_PUBLIC_ENDPOINT } : {}),
    ...(config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
      ? { credentials: { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY } }
      : {}),
  });
  return { kind: "s3", storage, bucket: config.S3_BUCKET, close: async () => storage.destroy() };
}

/**
 * The embedded mode has no keys to configure: the signing secret is made on first start
 * and kept (mode 0600) so URLs handed out survive a restart.
 */
async function localSecret(dir: string): Promise<string> {
  const file = path.join(dir, "storage-signing.key");
  try {
    const existing = (await readFile(file, "utf8")).trim();
    if (Buffer.byteLength(existing) >= MIN_SIGNING_SECRET_BYTES) return existing;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const secret = randomBytes(48).toString("base64url");
  try {
    // "wx": two replicas starting together must not overwrite each other's secret.
    await writeFile(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return (await readFile(file, "utf8")).trim();
  }
}
