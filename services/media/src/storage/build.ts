import path from "node:path";
import { ConfigError, installSigningSecret, LocalObjectStorage, type ObjectStorage } from "@transcribe/platform";
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
    const signingSecret = config.STORAGE_SIGNING_SECRET ?? (await installSigningSecret(path.join(config.DATA_DIR, "secrets")));
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

