import { generateServiceKeys } from "../rpc/credentials.js";

/**
 * The variables a service process started by a test needs to check its callers as in
 * production (decision 0023): its own key and the trusted public keys, made for the test.
 * `signerKey(name)` gives another name's private key, to call the process as that service.
 */
export async function serviceKeyEnv(name: string, callers: readonly string[] = ["bff"]) {
  const keys = await generateServiceKeys([...new Set([name, ...callers])]);
  return {
    env: { SERVICE_KEY: JSON.stringify(keys.privateKeys[name]), SERVICE_PUBLIC_KEYS: JSON.stringify(keys.publicKeys) },
    signerKey: (caller: string) => keys.privateKeys[caller]!,
  };
}
