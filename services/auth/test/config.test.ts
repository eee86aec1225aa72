import { spawnSync } from "node:child_process";
import path from "node:path";
import { ConfigError, loadConfig } from "@transcribe/platform";
import { describe, expect, it } from "vitest";
import { authConfigSchema, checkProviderPairs, DEVELOPMENT_ONLY_SECRET, resolveAuthSecret } from "../src/config.js";
import { renderAuthErrorPage } from "../src/domain/error-page.js";
import { deletionPath } from "../src/domain/delete-user.js";
import { specMessage } from "../src/spec-rules.js";

describe("auth configuration", () => {
  it("AUTH_SECRET: the fixed development secret only with NODE_ENV=development", () => {
    expect(resolveAuthSecret({ AUTH_SECRET: undefined, NODE_ENV: "development" })).toEqual({
      secret: DEVELOPMENT_ONLY_SECRET,
      isDevelopmentDefault: true,
    });
    expect(() => resolveAuthSecret({ AUTH_SECRET: undefined, NODE_ENV: "production" })).toThrow(/AUTH_SECRET: required when NODE_ENV=production/);
    expect(() => resolveAuthSecret({ AUTH_SECRET: undefined, NODE_ENV: "test" })).toThrow(ConfigError);
    expect(() => resolveAuthSecret({ AUTH_SECRET: "short", NODE_ENV: "production" })).toThrow(/at least 32 characters/);
    const real = "r".repeat(40);
    expect(resolveAuthSecret({ AUTH_SECRET: real, NODE_ENV: "production" }).secret).toBe(real);
  });

  it("defaults: base URL http://localhost:8080, 8–128 character passwords, 5-minute links, 24 h deletion tokens, everything on", () => {
    const config = loadConfig(authConfigSchema, {});
    expect(config).toMatchObject({
      AUTH_BASE_URL: "http://localhost:8080",
      AUTH_TRUSTED_ORIGINS: [],
      AUTH_MIN_PASSWORD_LENGTH: 8,
      AUTH_MAX_PASSWORD_LENGTH: 128,
      AUTH_MAGIC_LINK_EXPIRES_IN: 300,
      AUTH_DELETE_TOKEN_EXPIRES_IN: 86_400,
      AUTH_FRESH_AGE: 86_400,
      AUTH_DELETE_USER_ENABLED: true,
      AUTH_CHANGE_EMAIL_ENABLED: true,
      AUTH_ACCOUNT_LINKING_ENABLED: true,
      AUTH_ALLOW_UNLINKING_ALL: false,
      AUTH_RATE_LIMIT_ENABLED: true,
    });
    expect(loadConfig(authConfigSchema, { AUTH_TRUSTED_ORIGINS: "http://a.test, http://b.test" }).AUTH_TRUSTED_ORIGINS).toEqual([
      "http://a.test",
      "http://b.test",
    ]);
  });

  it("names every half-configured provider", () => {
    const config = { ...loadConfig(authConfigSchema, { GITHUB_CLIENT_SECRET: "s", AUTH_OIDC_DISCOVERY_URL: "http://idp.test/.well-known/openid-configuration" }), NODE_ENV: "test" as const };
    expect(() => checkProviderPairs(config)).toThrow(/GITHUB_CLIENT_ID[\s\S]*AUTH_OIDC_CLIENT_ID/);
  });

  it("the service refuses to start in production without AUTH_SECRET, naming it", () => {
    const repoRoot = path.resolve(import.meta.dirname, "../../..");
    const result = spawnSync(process.execPath, ["--import", "tsx", "services/auth/src/main.ts"], {
      cwd: repoRoot,
      env: {
        ...process.env,
        NODE_ENV: "production",
        AUTH_SECRET: "",
        DATABASE_URL: "postgres://postgres:postgres@127.0.0.1:1/auth",
        EVENT_BUS_DATABASE_URL: "postgres://postgres:postgres@127.0.0.1:1/events",
      },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("AUTH_SECRET");
  });
});

describe("auth domain rules", () => {
  it("deletion path: password or fresh session → immediate; stale without password → mailed link", () => {
    const now = new Date("2030-01-02T00:00:00Z");
    const base = { hasPassword: false, hasToken: false, freshAgeSeconds: 86_400, now };
    expect(deletionPath({ ...base, sessionCreatedAt: new Date("2030-01-01T12:00:00Z") })).toBe("immediate");
    expect(deletionPath({ ...base, sessionCreatedAt: new Date("2029-12-31T00:00:00Z") })).toBe("verify-by-email");
    expect(deletionPath({ ...base, hasPassword: true, sessionCreatedAt: new Date(0) })).toBe("immediate");
    expect(deletionPath({ ...base, freshAgeSeconds: 0, sessionCreatedAt: new Date(0) })).toBe("immediate");
  });

  it("spec wording of better-auth messages", () => {
    expect(specMessage("User already has a password set")).toBe("user already has a password");
    expect(specMessage("Provider github is not supported.")).toBe("Provider github is not supported or not found");
    expect(specMessage("Invalid password")).toBe("Invalid password");
  });

  it("the error page escapes what it shows", () => {
    expect(renderAuthErrorPage("a&b")).toContain("<code>a&amp;b</code>");
    expect(renderAuthErrorPage(undefined)).toContain("<code>Unknown</code>");
  });
});
