import { createLocalJWKSet, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type JSONWebKeySet } from "jose";
import { z } from "zod";

export type { JWK, JSONWebKeySet } from "jose";

/**
 * Service tokens (decision 0023): every RPC carries `authorization: Bearer <JWT>` signed
 * with the calling service's own Ed25519 key (kid = its name). The callee verifies it
 * against the install's public key set, checks the audience (the RPC's service), and
 * then the allow-list (rpc/policy.ts). A call made on a user's behalf carries the user
 * as `sub`, so a callee can trust the user id a message names.
 */

export const AUTHORIZATION_HEADER = "authorization";
const ALGORITHM = "EdDSA";
/** Short-lived: a leaked token is worth minutes; a caller re-signs at half its life. */
export const TOKEN_LIFETIME_SECONDS = 300;
const CLOCK_TOLERANCE_SECONDS = 5;

export interface ServiceKeySet {
  /** Private JWK per service name (each process gets only its own). */
  privateKeys: Record<string, JWK>;
  /** The public keys of every trusted caller, kid = service name. */
  publicKeys: JSONWebKeySet;
}

const jwkSchema = z.looseObject({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: z.string() });
const privateJwkSchema = jwkSchema.extend({ d: z.string(), kid: z.string().min(1) });
const jwksSchema = z.object({ keys: z.array(jwkSchema.extend({ kid: z.string().min(1) })) });

/** Parses SERVICE_KEY (a private Ed25519 JWK, kid = the service's name). */
export function parsePrivateKey(json: string): JWK {
  return privateJwkSchema.parse(JSON.parse(json)) as JWK;
}

/** Parses SERVICE_PUBLIC_KEYS (a JWK set, kid = service name). */
export function parsePublicKeys(json: string): JSONWebKeySet {
  return jwksSchema.parse(JSON.parse(json)) as JSONWebKeySet;
}

/** A new key pair per name: what the launcher and `deploy/scripts/service-keys.ts` make. */
export async function generateServiceKeys(names: readonly string[]): Promise<ServiceKeySet> {
  const privateKeys: Record<string, JWK> = {};
  const publicKeys: JWK[] = [];
  for (const name of names) {
    const pair = await generateKeyPair(ALGORITHM, { crv: "Ed25519", extractable: true });
    privateKeys[name] = { ...(await exportJWK(pair.privateKey)), kid: name, alg: ALGORITHM };
    publicKeys.push({ ...(await exportJWK(pair.publicKey)), kid: name, alg: ALGORITHM, use: "sig" });
  }
  return { privateKeys, publicKeys: { keys: publicKeys } };
}

/** The public half of a private JWK. */
export function publicJwkOf(privateJwk: JWK): JWK {
  const { d: _d, ...rest } = privateJwk;
  return { ...rest, use: "sig" };
}

export interface TokenSigner {
  readonly identity: string;
  /** A token for calls to `audience` (a proto service's full name), cached until half its life. */
  token(audience: string, userId: string | undefined): Promise<string>;
}

export function createTokenSigner(privateJwk: JWK, now: () => number = Date.now): TokenSigner {
  const identity = privateJwk.kid!;
  const keyPromise = importJWK({ ...privateJwk, alg: ALGORITHM }, ALGORITHM);
  const cache = new Map<string, { token: string; refreshAt: number }>();
  return {
    identity,
    async token(audience, userId) {
      const cacheKey = `${audience}\u0000${userId ?? ""}`;
      const cached = cache.get(cacheKey);
      const nowMs = now();
      if (cached && cached.refreshAt > nowMs) return cached.token;
      const issuedAt = Math.floor(nowMs / 1000);
      const jwt = new SignJWT({})
        .setProtectedHeader({ alg: ALGORITHM, kid: identity, typ: "JWT" })
        .setIssuer(identity)
        .setAudience(audience)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + TOKEN_LIFETIME_SECONDS);
      if (userId) jwt.setSubject(userId);
      const token = await jwt.sign(await keyPromise);
      if (cache.size > 10_000) cache.clear();
      cache.set(cacheKey, { token, refreshAt: nowMs + (TOKEN_LIFETIME_SECONDS * 1000) / 2 });
      return token;
    },
  };
}

export interface VerifiedCaller {
  /** The calling service's name. */
  service: string;
  /** The user the call is made for, when the caller acts for one. */
  userId: string | undefined;
}

export class InvalidTokenError extends Error {}

export interface TokenVerifier {
  verify(token: string, audience: string): Promise<VerifiedCaller>;
}

export function createTokenVerifier(publicKeys: JSONWebKeySet, now: () => number = Date.now): TokenVerifier {
  const keys = createLocalJWKSet(publicKeys);
  // A caller reuses one token for minutes: verify each signature once.
  const verified = new Map<string, { caller: VerifiedCaller; expiresAt: number }>();
  return {
    async verify(token, audience) {
      const cacheKey = `${audience}\u0000${token}`;
      const hit = verified.get(cacheKey);
      if (hit && hit.expiresAt > now()) return hit.caller;
      try {
        const { payload, protectedHeader } = await jwtVerify(token, keys, {
          algorithms: [ALGORITHM],
          audience,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ["iss", "exp", "iat"],
          maxTokenAge: TOKEN_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS,
          currentDate: new Date(now()),
        });
        // The key that verified it is the one named by kid; the issuer must be that name.
        if (payload.iss !== protectedHeader.kid) throw new InvalidTokenError("issuer does not match the signing key");
        const caller: VerifiedCaller = { service: payload.iss!, userId: payload.sub || undefined };
        if (verified.size > 10_000) verified.clear();
        verified.set(cacheKey, { caller, expiresAt: payload.exp! * 1000 });
        return caller;
      } catch (error) {
        if (error instanceof InvalidTokenError) throw error;
        throw new InvalidTokenError((error as Error).message);
      }
    },
  };
}
