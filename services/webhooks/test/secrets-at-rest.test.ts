import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createDatabase, createLogger, createServiceClient, migrateToLatest, outboxMigrations, startServiceServer, type ServiceServer } from "@transcribe/platform";
import { createTestDatabase } from "@transcribe/platform/testing";
import { WebhooksService } from "@transcribe/proto/webhooks/v1/webhooks";
import type { Kysely } from "kysely";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWebhooks } from "../src/build.js";
import { webhooksConfigSchema } from "../src/config.js";
import { migrations, type WebhooksDatabase } from "../src/db/migrations.js";

const logger = createLogger("webhooks-secrets-test", process.env.TEST_LOG_LEVEL ?? "silent");
const key = () => randomBytes(32).toString("base64");

/**
 * Endpoint signing secrets at rest: encrypted with WEBHOOK_SECRET_KEYS (AES-256-GCM, the
 * first key encrypts, every key decrypts), plaintext rows of older versions encrypted on
 * start, rows under a retired key re-encrypted under the current one, and deliveries still
 * signed with the secret the user was shown.
 */
describe("webhook signing secrets at rest", () => {
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: ReturnType<typeof createDatabase>;
  let db: Kysely<WebhooksDatabase>;
  let receiver: http.Server;
  let base: string;
  const received: Array<{ headers: http.IncomingHttpHeaders; body: string; path: string }> = [];
  const running: Array<{ server: ServiceServer; stop: () => Promise<void> }> = [];
  const oldKey = key();
  const newKey = key();

  beforeAll(async () => {
    testDb = await createTestDatabase("webhooks_secrets");
    database = createDatabase(testDb.url, { max: 4 });
    await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
    db = database.db as Kysely<WebhooksDatabase>;
    receiver = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (c: Buffer) => chunks.push(c));
      request.on("end", () => {
        received.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8"), path: request.url ?? "" });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const r of running) {
      await r.server.close();
      await r.stop();
    }
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await database?.close();
    await testDb?.drop();
  });

  async function start(keys: string) {
    const built = buildWebhooks({
      config: webhooksConfigSchema.parse({ WEBHOOKS_ALLOW_CIDRS: "127.0.0.0/8", WEBHOOK_POLL_MS: "100", WEBHOOK_SECRET_KEYS: keys }),
      logger,
      database,
    });
    for (const job of built.parts.background ?? []) await job.start();
    const server = await startServiceServer({ name: "webhooks", host: "127.0.0.1", port: 0, logger, routes: built.parts.routes! });
    const instance = { server, stop: async () => { for (const job of built.parts.background ?? []) await job.stop(); } };
    running.push(instance);
    return { client: createServiceClient(WebhooksService, server.url), built, stop: async () => { running.splice(running.indexOf(instance), 1); await server.close(); await instance.stop(); } };
  }

  const stored = async (id: string) => (await db.selectFrom("webhook_endpoints").select("secret").where("id", "=", id).executeTakeFirstOrThrow()).secret;

  async function deliverTo(endpointId: string, userId: string): Promise<string> {
    const id = randomUUID();
    await db
      .insertInto("webhook_deliveries")
      .values({ id, endpoint_id: endpointId, user_id: userId, event_type: "transcription.completed", source_key: randomUUID(), transcription_id: randomUUID(), payload: { type: "transcription.completed", id }, status: "pending", next_attempt_at: new Date(), give_up_at: new Date(Date.now() + 3_600_000), locked_until: null, last_status_code: null, last_error: null, delivered_at: null })
      .execute();
    const deadline = Date.now() + 10_000;
    for (;;) {
      const hit = received.find((r) => r.headers["webhook-id"] === id);
      if (hit) {
        // The receiver verifies with the secret it was shown; this throws on a wrong signature.
        return JSON.stringify(hit.body);
      }
      if (Date.now() > deadline) throw new Error(`delivery ${id} did not arrive`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const verify = (secret: string, deliveryId: string) => {
    const hit = received.find((r) => r.headers["webhook-id"] === deliveryId)!;
    return new Webhook(secret).verify(hit.body, { "webhook-id": String(hit.headers["webhook-id"]), "webhook-timestamp": String(hit.headers["webhook-timestamp"]), "webhook-signature": String(hit.headers["webhook-signature"]) });
  };

  it("stores a new endpoint's secret encrypted, and still signs deliveries with it", async () => {
    const service = await start(`k1:${oldKey}`);
    try {
      const created = await service.client.createEndpoint({ userId: "user-1", url: `${base}/one`, events: ["transcription.completed"] });
      const id = created.endpoint!.id;
      const atRest = await stored(id);
      expect(atRest).not.toContain(created.secret);
      expect(atRest).not.toContain(created.secret.replace(/^whsec_/, ""));
      expect(atRest.startsWith("whsec_")).toBe(false);
      await deliverTo(id, "user-1");
      const delivery = received.at(-1)!;
      expect(() => verify(created.secret, String(delivery.headers["webhook-id"]))).not.toThrow();
    } finally {
      await service.stop();
    }
  });

  it("encrypts plaintext rows of an older version on start, and re-encrypts rows of a retired key under the current one", async () => {
    const plainSecret = `whsec_${randomBytes(32).toString("base64")}`;
    const legacyId = randomUUID();
    await db.insertInto("webhook_endpoints").values({ id: legacyId, user_id: "user-2", url: `${base}/legacy`, events: ["transcription.completed"], secret: plainSecret }).execute();
    const first = await start(`k1:${oldKey}`);
    let underOld: string;
    try {
      underOld = await stored(legacyId);
      expect(underOld).not.toContain(plainSecret.replace(/^whsec_/, ""));
    } finally {
      await first.stop();
    }
    // Rotation: k2 encrypts, k1 still decrypts; the start moves every row to k2.
    const rotated = await start(`k2:${newKey},k1:${oldKey}`);
    try {
      const underNew = await stored(legacyId);
      expect(underNew).not.toBe(underOld);
      await deliverTo(legacyId, "user-2");
      expect(() => verify(plainSecret, String(received.at(-1)!.headers["webhook-id"]))).not.toThrow();
    } finally {
      await rotated.stop();
    }
    // k1 retired entirely: the rows are already under k2.
    const onlyNew = await start(`k2:${newKey}`);
    try {
      await deliverTo(legacyId, "user-2");
      expect(() => verify(plainSecret, String(received.at(-1)!.headers["webhook-id"]))).not.toThrow();
    } finally {
      await onlyNew.stop();
    }
  });

  it("refuses keys that are not 32 bytes, and requires a key in production", () => {
    expect(() => webhooksConfigSchema.parse({ WEBHOOK_SECRET_KEYS: `k1:${randomBytes(16).toString("base64")}` })).toThrow(/32 bytes/);
    expect(() => buildWebhooks({ config: webhooksConfigSchema.parse({ NODE_ENV: "production" }), logger, database })).toThrow(/WEBHOOK_SECRET_KEYS/);
  });
});
