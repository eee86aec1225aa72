/**
 * Service keys for the chart (decision 0023, docs/deploy.md "Service credentials").
 *
 *   npx tsx deploy/scripts/service-keys.ts [--name transcribe-service-keys] [--extra reports,...] > service-keys.yaml
 *   kubectl apply -n transcribe -f service-keys.yaml
 *
 * Prints a Secret with an Ed25519 key per service (SERVICE_KEY_<SERVICE>, a private JWK)
 * and SERVICE_PUBLIC_KEYS (the JWK set every service trusts). `--extra` adds keys for other
 * teams' services: give each its SERVICE_KEY_<NAME> and grant its RPCs with rpc.grants.
 * Run it again to rotate every key at once (then restart the Deployments).
 */
import { parseArgs } from "node:util";
import { generateServiceKeys } from "@transcribe/platform";
import { stringify } from "yaml";

export const productServices = ["bff", "auth", "media", "transcription", "transcription-worker", "transcription-live", "billing", "export", "blog", "notifier", "webhooks"];

const { values } = parseArgs({
  options: { name: { type: "string", default: "transcribe-service-keys" }, extra: { type: "string", default: "" } },
});
const extra = values.extra.split(",").map((s) => s.trim()).filter(Boolean);
for (const name of extra) {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new Error(`--extra: "${name}" is not a service name (lowercase letters, digits, dashes)`);
}
const names = [...new Set([...productServices, ...extra])];
const keys = await generateServiceKeys(names);
const stringData: Record<string, string> = { SERVICE_PUBLIC_KEYS: JSON.stringify(keys.publicKeys) };
for (const name of names) stringData[`SERVICE_KEY_${name.replace(/-/g, "_").toUpperCase()}`] = JSON.stringify(keys.privateKeys[name]);
process.stdout.write(
  stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: values.name }, type: "Opaque", stringData }),
);
