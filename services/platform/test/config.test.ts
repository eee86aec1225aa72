import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ConfigError, env, loadConfig } from "../src/index.js";

const schema = z.object({
  DATABASE_URL: env.postgresUrl(),
  PORT: env.port(7001),
  FEATURE: env.boolean(false),
});

describe("loadConfig", () => {
  it("applies defaults and coerces values", () => {
    const config = loadConfig(schema, { DATABASE_URL: "postgres://u:p@localhost:5432/db", FEATURE: "yes" });
    expect(config).toEqual({ DATABASE_URL: "postgres://u:p@localhost:5432/db", PORT: 7001, FEATURE: true });
  });

  it("names every missing or invalid variable in one error", () => {
    let error: unknown;
    try {
      loadConfig(schema, { DATABASE_URL: "not a url", PORT: "99999", FEATURE: "maybe" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toContain("DATABASE_URL");
    expect(message).toContain("PORT");
    expect(message).toContain("FEATURE");
  });

  it("reports a required variable that is not set", () => {
    expect(() => loadConfig(schema, {})).toThrow(/DATABASE_URL: .*\(not set\)/);
  });

  it("refuses a database URL without a database name", () => {
    expect(() => loadConfig(schema, { DATABASE_URL: "postgres://localhost:5432" })).toThrow(/DATABASE_URL/);
  });
});
