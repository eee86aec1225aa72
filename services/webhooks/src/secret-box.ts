import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Endpoint signing secrets at rest (decision 0032): AES-256-GCM under a key from
 * WEBHOOK_SECRET_KEYS. A stored value reads `v1:<key id>:<base64url of iv | ciphertext |
 * tag>`; the key id names the key that sealed it, so keys rotate: the first key of the
 * list seals, every listed key opens, and rows under another key are moved to the first
 * on start (reseal). The row's id is the additional data, so a sealed secret copied onto
 * another endpoint does not open.
 */
export interface SecretKey {
  id: string;
  key: Buffer;
}

const PREFIX = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  readonly #keys: readonly SecretKey[];

  constructor(keys: readonly SecretKey[]) {
    if (keys.length === 0) throw new Error("WEBHOOK_SECRET_KEYS: at least one key is needed");
    this.#keys = keys;
  }

  get currentKeyId(): string {
    return this.#keys[0]!.id;
  }

  seal(secret: string, endpointId: string): string {
    const { id, key } = this.#keys[0]!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(Buffer.from(endpointId, "utf8"));
    const sealed = Buffer.concat([iv, cipher.update(secret, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}:${id}:${sealed.toString("base64url")}`;
  }

  /** The secret of a stored value; a value of a version before encryption (whsec_...) is returned as it is. */
  open(stored: string, endpointId: string): string {
    if (!isSealed(stored)) return stored;
    const [, keyId, data] = stored.split(":");
    const key = this.#keys.find((k) => k.id === keyId);
    if (!key) throw new Error(`The endpoint's secret was sealed with key "${keyId}", which WEBHOOK_SECRET_KEYS no longer lists`);
    const bytes = Buffer.from(data!, "base64url");
    const decipher = createDecipheriv("aes-256-gcm", key.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(endpointId, "utf8"));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
  }

  /** Whether a stored value should be sealed again: plaintext, or under a key that is not the current one. */
  needsReseal(stored: string): boolean {
    return !isSealed(stored) || stored.split(":")[1] !== this.currentKeyId;
  }
}

function isSealed(stored: string): boolean {
  return stored.startsWith(`${PREFIX}:`);
}

/** Parses WEBHOOK_SECRET_KEYS: `id:base64key,...`, each key 32 bytes, ids unique. */
export function parseSecretKeys(value: string): SecretKey[] {
  const keys = value
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const at = entry.indexOf(":");
      const id = at > 0 ? entry.slice(0, at) : "";
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(id)) throw new Error(`WEBHOOK_SECRET_KEYS: "${id || entry.slice(0, 8)}…" needs the form id:base64key (id of letters, digits, - or _)`);
      const key = Buffer.from(entry.slice(at + 1), "base64");
      if (key.length !== 32) throw new Error(`WEBHOOK_SECRET_KEYS: the key "${id}" must be 32 bytes in base64 (openssl rand -base64 32)`);
      return { id, key };
    });
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new Error("WEBHOOK_SECRET_KEYS: key ids must be unique");
  return keys;
}
