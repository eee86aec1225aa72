import { existsSync } from "node:fs";
import path from "node:path";
import { commonConfigSchema, env, eventBusConfigProblems, eventBusConfigSchema, rpcConfigProblems, rpcConfigSchema, type EventBusConfig, type RpcConfig } from "@transcribe/platform";
import type { z } from "zod";
import { authConfigSchema, checkProviderPairs, resolveAuthSecret, type AuthConfig } from "../../services/auth/src/config.js";
import { bffConfigSchema } from "../../services/bff/src/config.js";
import { billingConfigSchema } from "../../services/billing/src/config.js";
import { blogConfigSchema } from "../../services/blog/src/config.js";
import { exportConfigSchema } from "../../services/export/src/config.js";
import { mediaConfigSchema } from "../../services/media/src/config.js";
import { checkSmtp, notifierConfigSchema, type NotifierConfig } from "../../services/notifier/src/config.js";
import { checkDrain, liveConfig, transcriptionConfig, workerConfig } from "../../services/transcription/src/config.js";
import { webhooksConfigSchema } from "../../services/webhooks/src/config.js";
import { repoRoot } from "./tools.js";

/**
 * What each entry point reads from its environment: its own zod schema, plus what
 * runService adds for a service with a database (the common variables, DATABASE_URL and
 * the event bus), plus the checks the entry point runs beyond zod before it starts.
 */
interface EntryPoint {
  schema: z.ZodObject;
  /** An entry point of a service with migrations that runs without the database (the live worker). */
  noDatabase?: boolean;
  checks?: (config: any) => void;
}

const entryPoints: Record<string, EntryPoint> = {
  "bff/src/main.ts": { schema: bffConfigSchema },
  "auth/src/main.ts": {
    schema: authConfigSchema,
    checks: (config: AuthConfig) => {
      checkProviderPairs(config);
      resolveAuthSecret(config);
    },
  },
  "media/src/main.ts": { schema: mediaConfigSchema },
  "transcription/src/main.ts": { schema: transcriptionConfig },
  "transcription/src/worker.ts": { schema: workerConfig, checks: checkDrain },
  "transcription/src/live-worker.ts": { schema: liveConfig, noDatabase: true },
  "billing/src/main.ts": { schema: billingConfigSchema },
  "export/src/main.ts": { schema: exportConfigSchema },
  "blog/src/main.ts": { schema: blogConfigSchema },
  "notifier/src/main.ts": { schema: notifierConfigSchema, checks: (config: NotifierConfig) => checkSmtp(config) },
  "webhooks/src/main.ts": { schema: webhooksConfigSchema },
};

export function knownEntryPoint(service: string, entry: string): boolean {
  return `${service}/${entry}` in entryPoints;
}

/** The whole schema a process parses its environment with (runService's composition for services with migrations). */
export function processSchema(service: string, entry: string): { schema: z.ZodObject; checks: (config: any) => void } {
  const entryPoint = entryPoints[`${service}/${entry}`];
  if (!entryPoint) throw new Error(`no config schema known for services/${service}/${entry}: add it to charts/test/service-env.ts`);
  // Every process reads the RPC settings (service key, trusted keys, protocol, TLS) and checks them at start.
  const identity = entry.endsWith("live-worker.ts") ? `${service}-live` : entry.endsWith("worker.ts") ? `${service}-worker` : service;
  const checkRpc = (config: unknown) => {
    const problems = rpcConfigProblems(config as RpcConfig, identity, { serves: identity !== "bff" });
    if (problems.length > 0) throw new Error(problems.join("; "));
  };
  const hasDatabase = !entryPoint.noDatabase && existsSync(path.join(repoRoot, "services", service, "src/db/migrations.ts"));
  if (!hasDatabase) {
    return {
      schema: commonConfigSchema.extend(rpcConfigSchema.shape).extend(entryPoint.schema.shape),
      checks: (config) => {
        checkRpc(config);
        entryPoint.checks?.(config);
      },
    };
  }
  const schema = commonConfigSchema
    .extend(rpcConfigSchema.shape)
    .extend(eventBusConfigSchema.shape)
    .extend({ DATABASE_URL: env.postgresUrl() })
    .extend(entryPoint.schema.shape);
  return {
    schema,
    checks: (config) => {
      const problems = [...eventBusConfigProblems(config as EventBusConfig)];
      if (problems.length > 0) throw new Error(problems.join("; "));
      checkRpc(config);
      entryPoint.checks?.(config);
    },
  };
}

/** Variables the schema requires and has no default for: parsing an empty environment names them. */
export function requiredVariables(schema: z.ZodObject): string[] {
  const result = schema.safeParse({});
  if (result.success) return [];
  return [...new Set(result.error.issues.map((issue) => String(issue.path[0])))].sort();
}
