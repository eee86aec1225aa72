import path from "node:path";
import { env, loadConfig } from "@transcribe/platform";
import { z } from "zod";

export const repoRoot = path.resolve(import.meta.dirname, "../../..");

const launcherSchema = z.object({
  DATA_DIR: z.string().default(".data"),
  BFF_PORT: env.port(8080),
  /** Services listen on SERVICE_PORT_BASE + 1, + 2, ... (see services.ts). */
  SERVICE_PORT_BASE: env.port(7000),
  EMBEDDED_PG_PORT: env.port(5433),
  /** Delay before a service that exited is started again; doubles on repeated crashes. */
  RESTART_DELAY_MS: env.positiveInt(2_000),
  SKIP_WEB_BUILD: env.boolean(false),
  /** The local mail catcher (maildev): notifier sends here; its inbox is on the web port. */
  MAILDEV_SMTP_PORT: env.port(1025),
  MAILDEV_WEB_PORT: env.port(1080),
  /** A real SMTP server instead of the mail catcher (which then does not start). */
  SMTP_URL: env.optionalString(),
  LOG_FORMAT: z.enum(["pretty", "json"]).default("pretty"),
});

export type LauncherConfig = z.infer<typeof launcherSchema> & { dataDir: string };

export function loadLauncherConfig(source: Record<string, string | undefined> = process.env): LauncherConfig {
  const config = loadConfig(launcherSchema, source);
  return { ...config, dataDir: path.resolve(repoRoot, config.DATA_DIR) };
}
