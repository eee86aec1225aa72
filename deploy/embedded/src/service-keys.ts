import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generateServiceKeys, publicJwkOf, type JWK } from "@transcribe/platform";

/**
 * The embedded install's service keys (decision 0023): one Ed25519 key per process, made on
 * first start and kept in DATA_DIR (mode 0600), so each process signs its calls as itself
 * and every process trusts exactly these. A process added later gets its key on the next
 * start; existing keys are kept.
 */
export async function ensureServiceKeys(dataDir: string, names: readonly string[]): Promise<{
  privateKeyOf(name: string): string;
  publicKeys: string;
}> {
  const file = path.join(dataDir, "service-keys.json");
  const stored: Record<string, JWK> = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, JWK>) : {};
  const missing = names.filter((name) => !stored[name]);
  if (missing.length > 0) {
    Object.assign(stored, (await generateServiceKeys(missing)).privateKeys);
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  }
  return {
    privateKeyOf: (name) => JSON.stringify(stored[name]),
    publicKeys: JSON.stringify({ keys: Object.values(stored).map(publicJwkOf) }),
  };
}
