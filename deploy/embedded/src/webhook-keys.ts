import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The embedded install's WEBHOOK_SECRET_KEYS (decision 0032): one AES-256 key, made on
 * first start and kept in DATA_DIR (mode 0600) like the service keys, so endpoint secrets
 * sealed with it open after a restart. WEBHOOK_SECRET_KEYS in the environment wins (that
 * is also how a key is rotated here: put the new key first, keep the old one after it).
 */
export function ensureWebhookSecretKeys(dataDir: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  const file = path.join(dataDir, "webhook-secret-keys");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const keys = `k1:${randomBytes(32).toString("base64")}`;
  writeFileSync(file, `${keys}\n`, { mode: 0o600 });
  return keys;
}
