import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseSecretKeys } from "@transcribe/webhooks/secret-box";
import { ensureWebhookSecretKeys } from "../src/webhook-keys.js";

describe("the embedded install's webhook secret key", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("is made on first start (0600, a valid 32-byte key), kept on the next, and the environment wins", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "webhook-keys-"));
    dirs.push(dir);
    const first = ensureWebhookSecretKeys(dir, undefined);
    expect(parseSecretKeys(first)).toHaveLength(1);
    expect((await stat(path.join(dir, "webhook-secret-keys"))).mode & 0o777).toBe(0o600);
    expect(ensureWebhookSecretKeys(dir, undefined)).toBe(first);
    expect(ensureWebhookSecretKeys(dir, "k9:abc")).toBe("k9:abc");
  });
});
