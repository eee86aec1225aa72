import { Code } from "@connectrpc/connect";
import { createDatabase, createLogger, createServiceClient, loadConfig, migrateToLatest, outboxMigrations, startServiceServer, type Database, type ServiceServer } from "@transcribe/platform";
import { createTestDatabase } from "@transcribe/platform/testing";
import { NotifierService } from "@transcribe/proto/notifier/v1/notifier";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildNotifier } from "../src/build.js";
import { notifierConfigSchema } from "../src/config.js";
import { migrations } from "../src/db/migrations.js";
import { startMailCatcher } from "./mail-catcher.js";

const schema = notifierConfigSchema.extend({ NODE_ENV: z.enum(["development", "production", "test"]).default("test") });
const logger = createLogger("notifier-tickets-test", "silent");

describe("notifier: support and contact tickets", () => {
  let catcher: Awaited<ReturnType<typeof startMailCatcher>>;
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: Database<any>;
  let server: ServiceServer;
  let built: ReturnType<typeof buildNotifier>;
  let client: ReturnType<typeof createServiceClient<typeof NotifierService>>;

  beforeAll(async () => {
    catcher = await startMailCatcher();
    testDb = await createTestDatabase("notifier_tickets");
    database = createDatabase(testDb.url, { max: 3 });
    await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
    built = buildNotifier({ config: loadConfig(schema, { SMTP_URL: catcher.smtpUrl, SUPPORT_EMAIL: "help@transcribe.test" }), logger, database });
    server = await startServiceServer({ name: "notifier", host: "127.0.0.1", port: 0, logger, routes: built.parts.routes! });
    client = createServiceClient(NotifierService, server.url);
  });
  afterAll(async () => {
    await server?.close();
    built?.transport.close();
    await database?.close();
    await testDb?.drop();
    await catcher?.stop();
  });

  it("SendSupportMessage stores the ticket and mails it to SUPPORT_EMAIL with Reply-To the user", async () => {
    const { ticketId } = await client.sendSupportMessage({
      userId: "u1",
      email: "ada@example.com",
      subject: "Export fails",
      message: "The PDF <b>export</b> fails.",
      transcriptionId: "t-42",
    });
    const row = await database.db.selectFrom("tickets").selectAll().where("id", "=", ticketId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ kind: "support", user_id: "u1", email: "ada@example.com", subject: "Export fails", transcription_id: "t-42" });
    expect(row.mailed_at).not.toBeNull();
    const mail = (await catcher.matching((m) => m.subject === "[Support] Export fails"))[0]!;
    expect(mail.to[0]?.address).toBe("help@transcribe.test");
    expect(mail.text).toContain("Transcription: t-42");
    expect(mail.html).toContain("&lt;b&gt;export&lt;/b&gt;");
    expect(JSON.stringify(mail.headers["reply-to"] ?? mail)).toContain("ada@example.com");
  });

  it("SendContactMessage stores and mails a public message; bad input is INVALID_ARGUMENT and stores nothing", async () => {
    const { ticketId } = await client.sendContactMessage({ name: "Grace", email: "grace@example.com", message: "Do you offer on-prem?" });
    expect(await database.db.selectFrom("tickets").select("kind").where("id", "=", ticketId).executeTakeFirst()).toEqual({ kind: "contact" });
    const before = (await database.db.selectFrom("tickets").selectAll().execute()).length;
    for (const request of [
      { name: "G", email: "not-an-email", message: "x" },
      { name: "  ", email: "g@example.com", message: "x" },
      { name: "G", email: "g@example.com", message: "x".repeat(5001) },
    ]) {
      await expect(client.sendContactMessage(request)).rejects.toMatchObject({ code: Code.InvalidArgument });
    }
    await expect(client.sendSupportMessage({ userId: "u1", email: "a@example.com", subject: "s".repeat(201), message: "m" })).rejects.toMatchObject({
      code: Code.InvalidArgument,
    });
    expect((await database.db.selectFrom("tickets").selectAll().execute()).length).toBe(before);
  });
});
