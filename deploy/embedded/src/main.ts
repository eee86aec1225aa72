import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { ConfigError, startEmbeddedPostgres } from "@transcribe/platform";
import { chooseTools } from "@transcribe/media/processing/ffmpeg-binaries";
import { ensureAuthSecret } from "./auth-secret.js";
import { ensureServiceKeys } from "./service-keys.js";
import { ensureWebhookSecretKeys } from "./webhook-keys.js";
import { engineSetup } from "./engine.js";
import { loadLauncherConfig, type LauncherConfig, repoRoot } from "./config.js";
import { databasesToCreate, entryPath, eventsDatabase, processes, urlVariable } from "./services.js";
import { Supervisor } from "./supervisor.js";
import { ensureWebBuilt } from "./web-build.js";

const log = (message: string) => process.stdout.write(`[launcher]               ${message}\n`);

let config: LauncherConfig;
try {
  config = loadLauncherConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`launcher: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

const pgDataDir = path.join(config.dataDir, "postgres");
removeStalePidFile(pgDataDir);

// The speech engine is prepared in the background from the first second (its venv and the
// default model take minutes on a first start); the product answers meanwhile and says so.
const engineLog = (message: string) => process.stdout.write(`[engine]                 ${message}\n`);
const engine = await engineSetup(config.dataDir, process.env, engineLog);
const engineReady = engine.prepare();

if (!config.SKIP_WEB_BUILD) await ensureWebBuilt(repoRoot, log);

log(`starting PostgreSQL on 127.0.0.1:${config.EMBEDDED_PG_PORT} (data in ${pgDataDir})`);
const postgres = await startEmbeddedPostgres({ dataDir: pgDataDir, port: config.EMBEDDED_PG_PORT });
for (const database of databasesToCreate()) await postgres.ensureDatabase(database);

const portOf = (offset: number | "bff") => (offset === "bff" ? config.BFF_PORT : config.SERVICE_PORT_BASE + offset);
const serviceUrls = Object.fromEntries(
  processes.map((p) => [urlVariable(p.name), `http://127.0.0.1:${portOf(p.portOffset)}`]),
);

// Mail: the local catcher unless a real SMTP server is configured.
const smtpUrl = config.SMTP_URL ?? `smtp://127.0.0.1:${config.MAILDEV_SMTP_PORT}`;
const mailCatcher = config.SMTP_URL
  ? []
  : [
      {
        name: "mail-catcher",
        entry: path.join(repoRoot, "deploy/embedded/src/mail-catcher.ts"),
        env: {
          MAILDEV_SMTP_PORT: String(config.MAILDEV_SMTP_PORT),
          MAILDEV_WEB_PORT: String(config.MAILDEV_WEB_PORT),
          MAILDEV_MAIL_DIRECTORY: path.join(config.dataDir, "mail"),
        },
      },
    ];
const productUrl = `http://localhost:${config.BFF_PORT}`;
const accountEnv = {
  SMTP_URL: smtpUrl,
  AUTH_SECRET: ensureAuthSecret(config.dataDir, process.env.AUTH_SECRET),
  // The browser-facing origin (links in mails point here); the Vite dev server proxies to it.
  AUTH_BASE_URL: process.env.AUTH_BASE_URL ?? productUrl,
  AUTH_TRUSTED_ORIGINS:
    process.env.AUTH_TRUSTED_ORIGINS ?? `http://127.0.0.1:${config.BFF_PORT},http://localhost:5173,http://127.0.0.1:5173`,
};

// The ffmpeg/ffprobe media would choose, for every process: the worker cuts windows for cloud
// engines with ffmpeg too, and a machine without a system FFmpeg has only the npm package's.
const mediaTools = await chooseTools(process.env).then(
  ({ ffmpeg, ffprobe }) => ({ FFMPEG_PATH: ffmpeg.path, FFPROBE_PATH: ffprobe.path }),
  // Media refuses to start and says what to install; the launcher still starts the rest.
  () => ({}),
);

// Every process signs its calls with its own key and trusts the others' (decision 0023).
const serviceKeys = await ensureServiceKeys(config.dataDir, processes.map((p) => p.name));
// Seals webhook signing secrets at rest (decision 0032); only the webhooks process gets it.
const webhookSecretKeys = ensureWebhookSecretKeys(config.dataDir, process.env.WEBHOOK_SECRET_KEYS);

const supervisor = new Supervisor({
  cwd: repoRoot,
  pidDir: path.join(config.dataDir, "run"),
  restartDelayMs: config.RESTART_DELAY_MS,
  prettyLogs: config.LOG_FORMAT === "pretty",
  log,
});
await supervisor.start([
  ...mailCatcher,
  ...processes.map((spec) => ({
    name: spec.name,
    entry: entryPath(spec),
    env: {
      ...serviceUrls,
      ...accountEnv,
      SERVICE_KEY: serviceKeys.privateKeyOf(spec.name),
      SERVICE_PUBLIC_KEYS: serviceKeys.publicKeys,
      ...engine.env,
      // Media chooses (and logs) its own.
      ...(spec.name === "media" ? {} : mediaTools),
      PORT: String(portOf(spec.portOffset)),
      HOST: "127.0.0.1",
      DATA_DIR: config.dataDir,
      // Signed upload, audio and export URLs must point at the BFF's origin on its real port.
      STORAGE_PUBLIC_URL: process.env.STORAGE_PUBLIC_URL ?? `${productUrl}/api/v1/storage`,
      PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? productUrl,
      EVENT_BUS_DATABASE_URL: postgres.urlFor(eventsDatabase),
      ...(spec.database ? { DATABASE_URL: postgres.urlFor(spec.database) } : {}),
      ...(spec.name === "webhooks" ? { WEBHOOK_SECRET_KEYS: webhookSecretKeys } : {}),
    },
  })),
]);
log(`the product is starting at ${productUrl} (health: /api/v1/health); Ctrl-C stops it`);
if (mailCatcher.length > 0) log(`mail goes to the local mail catcher: http://127.0.0.1:${config.MAILDEV_WEB_PORT}`);
void engineReady;

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping every service...`);
  await supervisor.stop();
  log("stopping PostgreSQL...");
  await postgres.stop();
  log(`stopped; data kept in ${config.dataDir}`);
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGHUP", () => void shutdown("SIGHUP"));
// A launcher bug must not leave PostgreSQL and the services running without an owner.
process.on("uncaughtException", (error) => {
  log(`launcher error: ${error.stack ?? error.message}`);
  void shutdown("uncaughtException").finally(() => process.exit(1));
});

/**
 * A launcher killed hard leaves postmaster.pid behind; PostgreSQL then refuses to start.
 * Remove it only when no process with that pid is alive.
 */
function removeStalePidFile(dataDir: string): void {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (Number.isInteger(pid) && pid > 0) {
    try {
      process.kill(pid, 0);
      throw new Error(
        `PostgreSQL (pid ${pid}) is still running on ${dataDir}; stop it (kill ${pid}) or the launcher that owns it first`,
      );
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
    }
  }
  rmSync(pidFile);
}
