import { ConfigError, env } from "@transcribe/platform";
import { z } from "zod";

/** Comma-separated list → trimmed, non-empty entries. */
const list = () =>
  z
    .string()
    .default("")
    .transform((value) =>
      value
        .split(",")
        .map((item) => item.trim())
        .filter(Boolean),
    );

const seconds = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);

/** The auth service's own variables (README "Auth service"). */
export const authConfigSchema = z.object({
  /**
   * The browser-facing origin, i.e. the BFF (which forwards /auth/*). Links in mails,
   * OAuth redirect URIs and the trusted origin all derive from it.
   */
  AUTH_BASE_URL: env.httpUrl().default("http://localhost:8080"),
  /** Signs cookies and tokens; required unless NODE_ENV=development (see resolveAuthSecret). */
  AUTH_SECRET: env.optionalString(),
  /** Origins besides AUTH_BASE_URL allowed to call /auth and to be redirect targets. */
  AUTH_TRUSTED_ORIGINS: list(),
  AUTH_MIN_PASSWORD_LENGTH: z.coerce.number().int().min(1).default(8),
  AUTH_MAX_PASSWORD_LENGTH: z.coerce.number().int().min(1).default(128),
  /** Password sign-in refused ('Email not verified') until the address is verified. */
  AUTH_REQUIRE_EMAIL_VERIFICATION: env.boolean(false),
  AUTH_MAGIC_LINK_EXPIRES_IN: z.coerce.number().int().positive().default(300),
  AUTH_EMAIL_VERIFICATION_EXPIRES_IN: z.coerce.number().int().positive().default(3600),
  AUTH_RESET_PASSWORD_EXPIRES_IN: z.coerce.number().int().positive().default(3600),
  AUTH_SESSION_EXPIRES_IN: z.coerce.number().int().positive().default(7 * 24 * 3600),
  AUTH_SESSION_UPDATE_AGE: seconds(24 * 3600),
  /** Age under which a session counts as fresh (deletion without password); 0 disables the check. */
  AUTH_FRESH_AGE: seconds(24 * 3600),
  AUTH_DELETE_USER_ENABLED: env.boolean(true),
  /** Lifetime of the token mailed to confirm an account deletion. */
  AUTH_DELETE_TOKEN_EXPIRES_IN: z.coerce.number().int().positive().default(86_400),
  AUTH_CHANGE_EMAIL_ENABLED: env.boolean(true),
  AUTH_ACCOUNT_LINKING_ENABLED: env.boolean(true),
  AUTH_ALLOW_UNLINKING_ALL: env.boolean(false),
  /** Rate limits on sign-in, magic link, password and verification endpoints (stored in PostgreSQL). */
  AUTH_RATE_LIMIT_ENABLED: env.boolean(true),
  /** Requests one API key may make per window (checked in PostgreSQL on every keyed request, across BFF replicas). */
  AUTH_API_KEY_RATE_LIMIT_MAX: z.coerce.number().int().positive().default(120),
  AUTH_API_KEY_RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().default(60),
  GITHUB_CLIENT_ID: env.optionalString(),
  GITHUB_CLIENT_SECRET: env.optionalString(),
  GOOGLE_CLIENT_ID: env.optionalString(),
  GOOGLE_CLIENT_SECRET: env.optionalString(),
  /** Any OpenID Connect provider (Keycloak, Authentik, ...), found through its discovery document. */
  AUTH_OIDC_DISCOVERY_URL: env.optionalHttpUrl(),
  AUTH_OIDC_CLIENT_ID: env.optionalString(),
  AUTH_OIDC_CLIENT_SECRET: env.optionalString(),
  AUTH_OIDC_PROVIDER_ID: z.string().regex(/^[a-z0-9-]+$/, "lowercase letters, digits and dashes").default("oidc"),
  AUTH_OIDC_SCOPES: list(),
  /** Product analytics: TrackUserSignup is sent to PostHog only when a key is set. */
  POSTHOG_KEY: env.optionalString(),
  POSTHOG_HOST: env.httpUrl().default("https://us.i.posthog.com"),
});

export type AuthConfig = z.infer<typeof authConfigSchema> & {
  NODE_ENV: "development" | "production" | "test";
};

/**
 * Shown in the log whenever it is used, so nobody mistakes it for a real secret. Only
 * NODE_ENV=development accepts it: everything else (production, test, preview clusters)
 * must set AUTH_SECRET.
 */
export const DEVELOPMENT_ONLY_SECRET = "development-only-secret-do-not-use-in-production-0123456789";

export function resolveAuthSecret(config: Pick<AuthConfig, "AUTH_SECRET" | "NODE_ENV">): {
  secret: string;
  isDevelopmentDefault: boolean;
} {
  if (config.AUTH_SECRET) {
    if (config.AUTH_SECRET.length < 32) {
      throw new ConfigError(["AUTH_SECRET: must be at least 32 characters (openssl rand -base64 32)"]);
    }
    return { secret: config.AUTH_SECRET, isDevelopmentDefault: false };
  }
  if (config.NODE_ENV === "development") return { secret: DEVELOPMENT_ONLY_SECRET, isDevelopmentDefault: true };
  throw new ConfigError([`AUTH_SECRET: required when NODE_ENV=${config.NODE_ENV} (openssl rand -base64 32) (not set)`]);
}

/** Each social provider needs both halves; one without the other is a configuration error, not a silent skip. */
export function checkProviderPairs(config: AuthConfig): void {
  const problems: string[] = [];
  const pairs: Array<[string, string | undefined, string, string | undefined]> = [
    ["GITHUB_CLIENT_ID", config.GITHUB_CLIENT_ID, "GITHUB_CLIENT_SECRET", config.GITHUB_CLIENT_SECRET],
    ["GOOGLE_CLIENT_ID", config.GOOGLE_CLIENT_ID, "GOOGLE_CLIENT_SECRET", config.GOOGLE_CLIENT_SECRET],
    ["AUTH_OIDC_DISCOVERY_URL", config.AUTH_OIDC_DISCOVERY_URL, "AUTH_OIDC_CLIENT_ID", config.AUTH_OIDC_CLIENT_ID],
  ];
  for (const [aName, a, bName, b] of pairs) {
    if (a && !b) problems.push(`${bName}: required when ${aName} is set (not set)`);
    if (b && !a) problems.push(`${aName}: required when ${bName} is set (not set)`);
  }
  if (config.AUTH_MIN_PASSWORD_LENGTH > config.AUTH_MAX_PASSWORD_LENGTH) {
    problems.push("AUTH_MIN_PASSWORD_LENGTH: must not exceed AUTH_MAX_PASSWORD_LENGTH");
  }
  if (problems.length > 0) throw new ConfigError(problems);
}
