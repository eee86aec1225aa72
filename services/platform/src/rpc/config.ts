import { readFileSync } from "node:fs";
import { z } from "zod";
import { env } from "../config.js";
import type { Logger } from "../logger.js";
import { configureServiceClients, DEFAULT_RPC_PROTOCOL, rpcProtocols } from "./client.js";
import { createTokenSigner, createTokenVerifier, parsePrivateKey, parsePublicKeys } from "./credentials.js";
import { builtInGrants, type Grants, mergeGrants, parseGrants } from "./policy.js";

/** The wire and trust settings every process that serves or calls RPCs reads (decision 0023). */
export const rpcConfigSchema = z.object({
  /** This process's private Ed25519 JWK (kid = its name): its calls are signed with it. */
  SERVICE_KEY: env.optionalString(),
  /** The JWK set of every service allowed to call (kid = service name). */
  SERVICE_PUBLIC_KEYS: env.optionalString(),
  /** Extra grants for other teams' services: `caller=pkg.Service/Method`, comma separated. */
  RPC_GRANTS: env.optionalString(),
  /** How this process calls other services. */
  RPC_PROTOCOL: z.enum(rpcProtocols).default(DEFAULT_RPC_PROTOCOL),
  /** grpc.reflection on the RPC port; default on except in production. */
  GRPC_REFLECTION: z.enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" }).optional(),
  /** TLS on the RPC port (cert-manager's tls.crt / tls.key), and the CA to trust for https:// upstreams. */
  RPC_TLS_CERT_FILE: env.optionalString(),
  RPC_TLS_KEY_FILE: env.optionalString(),
  RPC_TLS_CA_FILE: env.optionalString(),
});
export type RpcConfig = z.infer<typeof rpcConfigSchema> & { NODE_ENV: string };

export interface RpcSetup {
  callers?: { verifier: ReturnType<typeof createTokenVerifier>; grants: Grants };
  reflection: boolean;
  tls?: { cert: Buffer; key: Buffer };
}

/**
 * Problems with the RPC settings, for one start-up error naming every variable. A process
 * that only calls (the BFF) needs no trusted keys.
 */
export function rpcConfigProblems(config: RpcConfig, identity: string, { serves = true }: { serves?: boolean } = {}): string[] {
  const problems: string[] = [];
  const production = config.NODE_ENV === "production";
  if (config.SERVICE_KEY) {
    try {
      const key = parsePrivateKey(config.SERVICE_KEY);
      if (key.kid !== identity) problems.push(`SERVICE_KEY: its kid is "${key.kid}", this process is "${identity}"`);
    } catch (error) {
      problems.push(`SERVICE_KEY: not a private Ed25519 JWK with a kid (${(error as Error).message.split("\n")[0]})`);
    }
  } else if (production) problems.push("SERVICE_KEY: required in production (the service's private key, decision 0023)");
  if (config.SERVICE_PUBLIC_KEYS) {
    try {
      parsePublicKeys(config.SERVICE_PUBLIC_KEYS);
    } catch (error) {
      problems.push(`SERVICE_PUBLIC_KEYS: not a JWK set of Ed25519 keys with kids (${(error as Error).message.split("\n")[0]})`);
    }
  } else if (production && serves) problems.push("SERVICE_PUBLIC_KEYS: required in production (the trusted callers' keys)");
  problems.push(...parseGrants(config.RPC_GRANTS).problems.map((p) => `RPC_GRANTS: ${p}`));
  if (Boolean(config.RPC_TLS_CERT_FILE) !== Boolean(config.RPC_TLS_KEY_FILE)) {
    problems.push("RPC_TLS_CERT_FILE and RPC_TLS_KEY_FILE: set both or neither");
  }
  for (const variable of ["RPC_TLS_CERT_FILE", "RPC_TLS_KEY_FILE", "RPC_TLS_CA_FILE"] as const) {
    const file = config[variable];
    if (!file) continue;
    try {
      readFileSync(file);
    } catch (error) {
      problems.push(`${variable}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? "error"})`);
    }
  }
  return problems;
}

/** The process's identity, protocol and CA for every service client it makes. */
export function configureRpcClients(config: RpcConfig): void {
  configureServiceClients({
    protocol: config.RPC_PROTOCOL,
    signer: config.SERVICE_KEY ? createTokenSigner(parsePrivateKey(config.SERVICE_KEY)) : undefined,
    caFile: config.RPC_TLS_CA_FILE,
  });
}

/**
 * Applies the settings of a serving process: its clients (configureRpcClients) and what
 * its server needs (the caller check, reflection, TLS). Call after rpcConfigProblems came
 * back empty.
 */
export function applyRpcConfig(config: RpcConfig, logger: Logger): RpcSetup {
  configureRpcClients(config);
  if (!config.SERVICE_PUBLIC_KEYS) {
    logger.warn("SERVICE_PUBLIC_KEYS is not set: this port trusts every caller (development only)");
  }
  const reflection =
    config.GRPC_REFLECTION === undefined ? config.NODE_ENV !== "production" : ["true", "1", "yes"].includes(config.GRPC_REFLECTION);
  return {
    reflection,
    ...(config.SERVICE_PUBLIC_KEYS
      ? {
          callers: {
            verifier: createTokenVerifier(parsePublicKeys(config.SERVICE_PUBLIC_KEYS)),
            grants: mergeGrants(builtInGrants, parseGrants(config.RPC_GRANTS).grants),
          },
        }
      : {}),
    ...(config.RPC_TLS_CERT_FILE && config.RPC_TLS_KEY_FILE
      ? { tls: { cert: readFileSync(config.RPC_TLS_CERT_FILE), key: readFileSync(config.RPC_TLS_KEY_FILE) } }
      : {}),
  };
}
