import { Writable } from "node:stream";
import {
  ConfigError,
  createDatabase,
  type Database,
  loadConfig,
  migrateToLatest,
  newEvent,
  outboxMigrations,
  toEnvelope,
} from "@transcribe/platform";
import { createTestDatabase, freePort } from "@transcribe/platform/testing";
import { SendEmailSchema, SendMagicLinkSchema } from "@transcribe/proto/events/v1/events";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildNotifier } from "../src/build.js";
import { notifierConfigSchema } from "../src/config.js";
import { migrations } from "../src/db/migrations.js";
import { startMailCatcher } from "./mail-catcher.js";

const schema = notifierConfigSchema.extend({ NODE_ENV: z.enum(["development", "production", "test"]).default("test") });

function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: pino({ level: "info" }, stream), lines };
}

describe("notifier: mail commands over SMTP", () => {
  let catcher: Awaited<ReturnType<typeof startMailCatcher>>;
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: Database<any>;

  beforeAll(async () => {
    catcher = await startMailCatcher();
    testDb = await createTestDatabase("notifier");
    database = createDatabase(testDb.url, { max: 3 });
    await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
  });
  afterAll(async () => {
    await database?.close();
    await testDb?.drop();
    await catcher?.stop();
  });

  const notifier = (env: Record<string, string>, logger = captureLogger().logger) =>
    buildNotifier({ config: loadConfig(schema, env), logger, database });

  it("SendMagicLink becomes a sign-in mail with a plain-text and an HTML body, logged in mail_log", async () => {
    const { handler, transport } = notifier({ SMTP_URL: catcher.smtpUrl, MAIL_FROM: "Transcribe <auth@transcribe.test>" });
    const url = "http://localhost:8080/auth/magic-link/verify?token=abc&callbackURL=%2Fdashboard";
    const command = newEvent(SendMagicLinkSchema, { email: "n-1@example.com", magicLinkUrl: url, token: "abc" });
    await handler(toEnvelope(command));
    transport.close();

    const mail = (await catcher.matching((m) => m.to[0]?.address === "n-1@example.com"))[0]!;
    expect(mail.subject).toBe("Sign in to Transcribe");
    expect(mail.text).toContain(url);
    expect(mail.html).toContain('href="http://localhost:8080/auth/magic-link/verify?token=abc&amp;callbackURL=%2Fdashboard"');
    expect(mail.from[0]).toMatchObject({ address: "auth@transcribe.test", name: "Transcribe" });
    expect(mail.messageId).toBe(`${command.id}@transcribe.test`);

    const log = await database.db.selectFrom("mail_log").selectAll().where("event_id", "=", command.id).execute();
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ kind: "magic-link", recipient: "n-1@example.com", subject: "Sign in to Transcribe", transport: "smtp" });
  });

  it("SendEmail is sent as rendered by its producer, once however often it is delivered", async () => {
    const { handler, transport } = notifier({ SMTP_URL: catcher.smtpUrl });
    const command = newEvent(SendEmailSchema, {
      to: "n-2@example.com",
      subject: "Verify your e-mail address",
      text: "plain body http://x/verify",
      html: "<p>html body</p>",
      kind: "verify-email",
    });
    const envelope = toEnvelope(command);
    await handler(envelope);
    await handler(envelope);
    transport.close();
    const mails = await catcher.matching((m) => m.to[0]?.address === "n-2@example.com");
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text.trim()).toBe("plain body http://x/verify");
    expect(mails[0]!.html).toContain("<p>html body</p>");
    expect(mails[0]!.headers["x-transcribe-kind"]).toBe("verify-email");
    const log = await database.db.selectFrom("mail_log").select("kind").where("event_id", "=", command.id).execute();
    expect(log).toEqual([{ kind: "verify-email" }]);
  });

  it("when the SMTP server is down the delivery fails (to be retried) and nothing is logged or marked processed", async () => {
    const { handler, transport } = notifier({ SMTP_URL: `smtp://127.0.0.1:${await freePort()}`, SMTP_TIMEOUT_MS: "2000" });
    const command = newEvent(SendEmailSchema, { to: "n-3@example.com", subject: "s", text: "t", html: "<p>h</p>", kind: "reset-password" });
    await expect(handler(toEnvelope(command))).rejects.toThrow();
    transport.close();
    expect(await database.db.selectFrom("mail_log").selectAll().where("event_id", "=", command.id).execute()).toEqual([]);
    const processed = await database.db
      .selectFrom("platform_processed_events")
      .selectAll()
      .where("event_id", "=", command.id)
      .execute();
    expect(processed).toEqual([]);

    // The retry, once the server is back, sends it.
    const retry = notifier({ SMTP_URL: catcher.smtpUrl });
    await retry.handler(toEnvelope(command));
    retry.transport.close();
    expect(await catcher.matching((m) => m.to[0]?.address === "n-3@example.com")).not.toHaveLength(0);
  });

  it("in development the magic link is printed in the log as well", async () => {
    const { logger, lines } = captureLogger();
    const { handler, transport } = notifier({ NODE_ENV: "development", SMTP_URL: catcher.smtpUrl }, logger);
    const url = "http://localhost:8080/auth/magic-link/verify?token=dev";
    await handler(toEnvelope(newEvent(SendMagicLinkSchema, { email: "n-4@example.com", magicLinkUrl: url, token: "dev" })));
    transport.close();
    expect(lines.some((l) => l.msg === "magic link" && l.url === url && l.to === "n-4@example.com")).toBe(true);
  });

  it("outside development the link is not logged", async () => {
    const { logger, lines } = captureLogger();
    const { handler, transport } = notifier({ NODE_ENV: "production", SMTP_URL: catcher.smtpUrl }, logger);
    const url = "http://localhost:8080/auth/magic-link/verify?token=prod";
    await handler(toEnvelope(newEvent(SendMagicLinkSchema, { email: "n-5@example.com", magicLinkUrl: url, token: "prod" })));
    transport.close();
    expect(JSON.stringify(lines)).not.toContain("token=prod");
  });
});

describe("notifier configuration", () => {
  it("SMTP_URL is required outside development", () => {
    const database = { db: undefined } as unknown as Database<any>;
    expect(() => buildNotifier({ config: loadConfig(schema, { NODE_ENV: "production" }), logger: captureLogger().logger, database })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig(schema, { SMTP_URL: "http://mail" })).toThrow(/SMTP_URL/);
  });

  it("in development without SMTP_URL mail goes to the log", () => {
    const database = { db: undefined } as unknown as Database<any>;
    const { transport } = buildNotifier({ config: loadConfig(schema, { NODE_ENV: "development" }), logger: captureLogger().logger, database });
    expect(transport.name).toBe("log");
  });
});
