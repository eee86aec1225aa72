import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { MIN_SIGNING_SECRET_BYTES } from "./signing.js";

/**
 * The embedded mode needs no keys: the install's URL-signing secret is made on first start
 * and kept (0600) in `<dir>/storage-signing.key`, so signed URLs survive a restart. Media
 * and export share it: whichever service starts first writes it.
 */
export async function installSigningSecret(dir: string): Promise<string> {
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
    // "wx": services and replicas starting together must not overwrite each other's secret.
    await writeFile(file, `${secret}\n`, { mode: 0o600, flag: "wx" });
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return (await readFile(file, "utf8")).trim();
  }
}
