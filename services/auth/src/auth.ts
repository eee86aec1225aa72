import type { Logger } from "@transcribe/platform";
import { apiKey } from "@better-auth/api-key";
import { betterAuth, type BetterAuthOptions } from "better-auth";
import { genericOAuth, magicLink } from "better-auth/plugins";
import type { Kysely } from "kysely";
import type { AuthConfig } from "./config.js";
import { authTableNames } from "./db/schema.js";
import { confirmEmailChangeMail, resetPasswordMail, verifyEmailMail } from "./domain/mails.js";
import { authRateLimitRules } from "./domain/rate-limits.js";
import type { AuthMailer } from "./mailer.js";
import { specRules } from "./spec-rules.js";

export interface AuthDependencies {
  config: AuthConfig;
  secret: string;
  /** The service's own database (runService's pool). */
  db: Kysely<any>;
  mailer: AuthMailer;
  logger: Logger;
}

/**
 * The whole better-auth configuration of the product. Everything the spec asks of the
 * authentication layer is a better-auth feature switched on here; specRules() restores
 * the few spec behaviours better-auth 1.7 no longer has.
 */
export function authOptions({ config, secret, db, mailer, logger }: AuthDependencies) {
  const development = config.NODE_ENV === "development";
  const socialProviders: NonNullable<BetterAuthOptions["socialProviders"]> = {};
  // Unconfigured providers are left out entirely, so the client never offers them.
  if (config.GITHUB_CLIENT_ID && config.GITHUB_CLIENT_SECRET) {
    socialProviders.github = { clientId: config.GITHUB_CLIENT_ID, clientSecret: config.GITHUB_CLIENT_SECRET };
  }
  if (config.GOOGLE_CLIENT_ID && config.GOOGLE_CLIENT_SECRET) {
    socialProviders.google = {
      clientId: config.GOOGLE_CLIENT_ID,
      clientSecret: config.GOOGLE_CLIENT_SECRET,
      // A refresh token is only issued with offline access; refresh-token needs it.
      accessType: "offline",
      prompt: "select_account consent",
    };
  }
  const oidc =
    config.AUTH_OIDC_DISCOVERY_URL && config.AUTH_OIDC_CLIENT_ID
      ? [
          genericOAuth({
            config: [
              {
                providerId: config.AUTH_OIDC_PROVIDER_ID,
                discoveryUrl: config.AUTH_OIDC_DISCOVERY_URL,
                clientId: config.AUTH_OIDC_CLIENT_ID,
                ...(config.AUTH_OIDC_CLIENT_SECRET ? { clientSecret: config.AUTH_OIDC_CLIENT_SECRET } : {}),
                scopes: config.AUTH_OIDC_SCOPES.length > 0 ? config.AUTH_OIDC_SCOPES : ["openid", "email", "profile", "offline_access"],
                pkce: true,
              },
            ],
          }),
        ]
      : [];

  return {
    appName: "Transcribe",
    // The api-key plugin's own HTTP endpoints stay off: keys are managed through the BFF's
    // /api/v1/api-keys (AuthService RPCs) and resolved by GetSession only.
    disabledPaths: API_KEY_HTTP_PATHS,
    baseURL: config.AUTH_BASE_URL,
    basePath: "/auth",
    secret,
    trustedOrigins: config.AUTH_TRUSTED_ORIGINS,
    // Our migrations own the schema (db/migrations.ts); transactions make sign-up,
    // token consumption and deletion all-or-nothing.
    database: { db, type: "postgres" as const, transaction: true },
    user: {
      ...authTableNames.user,
      changeEmail: {
        enabled: config.AUTH_CHANGE_EMAIL_ENABLED,
        // docs/requirements.md "States": an unverified address is replaced at once (and verified again);
        // a verified one is only changed after the current address confirms.
        updateEmailWithoutVerification: true,
        sendChangeEmailConfirmation: async ({ user, newEmail, url }) => {
          await mailer.send(confirmEmailChangeMail(user.email, newEmail, url));
        },
      },
      deleteUser: {
        enabled: config.AUTH_DELETE_USER_ENABLED,
        // No sender on purpose: specRules() mails the link only when the session is
        // stale and no password was given; otherwise better-auth deletes at once.
        deleteTokenExpiresIn: config.AUTH_DELETE_TOKEN_EXPIRES_IN,
      },
    },
    session: {
      ...authTableNames.session,
      expiresIn: config.AUTH_SESSION_EXPIRES_IN,
      updateAge: config.AUTH_SESSION_UPDATE_AGE,
      freshAge: config.AUTH_FRESH_AGE,
    },
    account: {
      ...authTableNames.account,
      // Provider tokens are secrets of the user's other accounts: encrypted at rest.
      encryptOAuthTokens: true,
      accountLinking: {
        enabled: config.AUTH_ACCOUNT_LINKING_ENABLED,
        allowUnlinkingAll: config.AUTH_ALLOW_UNLINKING_ALL,
      },
    },
    verification: authTableNames.verification,
    emailAndPassword: {
      enabled: true,
      minPasswordLength: config.AUTH_MIN_PASSWORD_LENGTH,
      maxPasswordLength: config.AUTH_MAX_PASSWORD_LENGTH,
      requireEmailVerification: config.AUTH_REQUIRE_EMAIL_VERIFICATION,
      resetPasswordTokenExpiresIn: config.AUTH_RESET_PASSWORD_EXPIRES_IN,
      // Whoever reset the password should be the only one signed in afterwards.
      revokeSessionsOnPasswordReset: true,
      sendResetPassword: async ({ user, url }) => {
        await mailer.send(resetPasswordMail(user.email, url));
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      autoSignInAfterVerification: true,
      expiresIn: config.AUTH_EMAIL_VERIFICATION_EXPIRES_IN,
      sendVerificationEmail: async ({ user, url }) => {
        await mailer.send(verifyEmailMail(user.email, url));
      },
    },
    socialProviders,
    plugins: [
      magicLink({
        // Only a hash is stored: a database leak does not hand out sign-in links.
        storeToken: "hashed",
        expiresIn: config.AUTH_MAGIC_LINK_EXPIRES_IN,
        sendMagicLink: async ({ email, url, token }) => {
          await mailer.sendMagicLink({ email, url, token });
        },
      }),
      ...oidc,
      apiKey({
        defaultPrefix: API_KEY_PREFIX,
        maximumNameLength: 100,
        // Any future expiry; the BFF refuses past ones with a clear message.
        keyExpiration: { minExpiresIn: 0, maxExpiresIn: 3650 },
        rateLimit: {
          enabled: true,
          timeWindow: config.AUTH_API_KEY_RATE_LIMIT_WINDOW_SECONDS * 1000,
          maxRequests: config.AUTH_API_KEY_RATE_LIMIT_MAX,
        },
        startingCharactersConfig: { shouldStore: true, charactersLength: API_KEY_PREFIX.length + 6 },
        // Left off on purpose: with it, a key would be a session on every /auth/* route
        // (change e-mail, delete user). Keys are resolved only by AuthService.GetSession.
        enableSessionForAPIKeys: false,
        schema: authTableNames.apiKey,
      }),
      specRules({ mailer, deleteTokenExpiresIn: config.AUTH_DELETE_TOKEN_EXPIRES_IN }),
    ],
    rateLimit: {
      ...authTableNames.rateLimit,
      enabled: config.AUTH_RATE_LIMIT_ENABLED,
      // In PostgreSQL, so the limits hold across replicas and restarts.
      storage: "database" as const,
      window: 60,
      max: 100,
      customRules: authRateLimitRules,
    },
    advanced: {
      // better-auth skips origin checks when NODE_ENV=test; ours run in every environment,
      // so the tests see what production does.
      disableOriginCheck: false,
      disableCSRFCheck: false,
      useSecureCookies: !development,
      defaultCookieAttributes: { httpOnly: true, sameSite: "lax" as const, secure: !development },
      // The BFF sets X-Forwarded-For to the client's address (one value); rate limits key on it.
      ipAddress: { ipAddressHeaders: ["x-forwarded-for"] },
    },
    logger: {
      level: "info" as const,
      log: (level: "debug" | "info" | "success" | "warn" | "error", message: string, ...args: unknown[]) => {
        const fields = args.length > 0 ? { details: args } : {};
        const pinoLevel = level === "success" ? "info" : level;
        logger[pinoLevel]({ component: "better-auth", ...fields }, message);
      },
    },
    telemetry: { enabled: false },
  } satisfies BetterAuthOptions;
}

const API_KEY_HTTP_PATHS = [
  "/api-key/create",
  "/api-key/get",
  "/api-key/update",
  "/api-key/delete",
  "/api-key/list",
  // Server-only in the plugin already; listed so a release that opens them stays closed here.
  "/api-key/verify",
  "/api-key/delete-all-expired-api-keys",
];

/** Every API key starts with it, so a leaked one is recognisable (secret scanners, logs). */
export const API_KEY_PREFIX = "tsk_";

export function createAuth(deps: AuthDependencies) {
  return betterAuth(authOptions(deps));
}

export type Auth = ReturnType<typeof createAuth>;
