/**
 * Prints a service token for calling a service by hand (grpcurl, docs/api.md):
 *
 *   npx tsx deploy/scripts/service-token.ts <proto service> [user id] [--as bff] [--keys .data/service-keys.json]
 *
 * Signs as `--as` (default bff) with its key from the embedded install's key file (or
 * SERVICE_KEY, a private JWK, when set). The token is valid for 5 minutes.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createTokenSigner, parsePrivateKey, type JWK } from "@transcribe/platform";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { as: { type: "string", default: "bff" }, keys: { type: "string", default: ".data/service-keys.json" } },
});
const [service, userId] = positionals;
if (!service || !/^[A-Za-z0-9_.]+$/.test(service)) {
  process.stderr.write("usage: service-token.ts <package.Service> [user id] [--as bff] [--keys .data/service-keys.json]\n");
  process.exit(2);
}
const key: JWK | undefined = process.env.SERVICE_KEY
  ? parsePrivateKey(process.env.SERVICE_KEY)
  : (JSON.parse(readFileSync(values.keys, "utf8")) as Record<string, JWK>)[values.as];
if (!key) {
  process.stderr.write(`no key for "${values.as}" in ${values.keys}\n`);
  process.exit(1);
}
process.stdout.write(`${await createTokenSigner(key).token(service, userId)}\n`);
