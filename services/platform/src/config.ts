import { z } from "zod";
import { ConfigError } from "./errors.js";

/**
 * Reads configuration from environment variables through a zod object schema whose
 * keys are the variable names. Every problem is collected so that one start-up failure
 * names every missing or invalid variable, not just the first.
 */
export function loadConfig<S extends z.ZodObject>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.join(".") || "(environment)";
    const value = typeof issue.path[0] === "string" ? env[issue.path[0]] : undefined;
    return value === undefined
      ? `${variable}: ${issue.message} (not set)`
      : `${variable}: ${issue.message}`;
  });
  throw new ConfigError(problems);
}

/** Building blocks for config schemas, so every service spells a variable the same way. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  postgresUrl: () =>
    z
      .string({ error: "required" })
      .refine(isPostgresUrl, "must be a postgres:// or postgresql:// URL with a host and a database name"),
  httpUrl: () => z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }),
  optionalHttpUrl: () =>
    z.preprocess(emptyToUndefined, z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional()),
  optionalString: () => z.preprocess(emptyToUndefined, z.string().optional()),
  boolean: (fallback: boolean) =>
    z
      .enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" })
      .default(fallback ? "true" : "false")
      .transform((v) => v === "true" || v === "1" || v === "yes"),
  positiveInt: (fallback: number) => z.coerce.number().int().positive().default(fallback),
};

function emptyToUndefined(value: unknown): unknown {
  return value === "" ? undefined : value;
}

function isPostgresUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === "postgres:" || url.protocol === "postgresql:") &&
      url.hostname.length > 0 &&
      url.pathname.length > 1
    );
  } catch {
    return false;
  }
}

/** Variables every process of the product understands. */
export const commonConfigSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  HOST: z.string().default("127.0.0.1"),
  OTEL_EXPORTER_OTLP_ENDPOINT: env.optionalHttpUrl(),
  SENTRY_DSN: env.optionalString(),
  SHUTDOWN_GRACE_MS: env.positiveInt(10_000),
});
export type CommonConfig = z.infer<typeof commonConfigSchema>;
