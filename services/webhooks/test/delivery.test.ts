import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { addressPolicy, createDatabase, createLogger, migrateToLatest, outboxMigrations } from "@transcribe/platform";
import { createTestDatabase } from "@transcribe/platform/testing";
import type { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrations, type WebhooksDatabase } from "../src/db/migrations.js";
import { DeliveryWorker } from "../src/delivery/worker.js";
import { SecretBox } from "../src/secret-box.js";

const logger = createLogger("webhooks-delivery-test", process.env.TEST_LOG_LEVEL ?? "silent");
const TIMEOUT_MS = 1_500;

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The delivery worker on its real table with real receivers: one that answers its headers
 * and hangs up mid-body must cost its own attempt a failure within the deadline, never
 * another user's delivery.
 */
describe("webhook delivery worker", () => {
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: ReturnType<typeof createDatabase>;
  let db: Kysely<WebhooksDatabase>;
  let receiver: http.Server;
  let base: string;
  const sockets = new Set<Socket>();
  const arrived: string[] = [];
  const hungUp: string[] = [];
  let worker: DeliveryWorker;

  beforeAll(async () => {
    testDb = await createTestDatabase("webhooks_delivery");
    database = createDatabase(testDb.url, { max: 4 });
    await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
    db = database.db as Kysely<WebhooksDatabase>;
    receiver = http.createServer((request, response) => {
      request.resume();
      if (request.url === "/hang-up") {
        hungUp.push(String(request.headers["webhook-id"]));
        // Headers and a piece of the promised body, then the connection is dropped.
        response.writeHead(200, { "content-length": "100000" });
        response.write("partial");
        setTimeout(() => request.socket.destroy(), 50);
        return;
      }
      if (request.url === "/endless") {
        // Headers, then a body that never ends (a slow drip well past any deadline).
        response.writeHead(200, { "content-type": "text/plain" });
        const drip = setInterval(() => response.write("x".repeat(1024)), 20);
        response.on("close", () => clearInterval(drip));
        return;
      }
      request.on("end", () => {
        arrived.push(String(request.headers["webhook-id"]));
        response.writeHead(204).end();
      });
    });
    receiver.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    worker = new DeliveryWorker({ db, logger, policy: addressPolicy(["127.0.0.0/8"]), timeoutMs: TIMEOUT_MS, retryBaseSeconds: 60, pollMs: 100, box: new SecretBox([{ id: "test", key: randomBytes(32) }]) });
    worker.start();
  });

  afterAll(async () => {
    await worker?.stop();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await database?.close();
    await testDb?.drop();
  });

  async function endpointWithDelivery(userId: string, path: string): Promise<string> {
    const endpointId = randomUUID();
    await db
      .insertInto("webhook_endpoints")
      .values({ id: endpointId, user_id: userId, url: `${base}${path}`, events: ["transcription.completed"], secret: `whsec_${randomBytes(32).toString("base64")}` })
      .execute();
    const id = randomUUID();
    await db
      .insertInto("webhook_deliveries")
      .values({
        id,
        endpoint_id: endpointId,
        user_id: userId,
        event_type: "transcription.completed",
        source_key: randomUUID(),
        transcription_id: randomUUID(),
        payload: { type: "transcription.completed" },
        status: "pending",
        next_attempt_at: new Date(),
        give_up_at: new Date(Date.now() + 3_600_000),
        locked_until: null,
        last_status_code: null,
        last_error: null,
        delivered_at: null,
      })
      .execute();
    worker.wake();
    return id;
  }

  const row = (id: string) => db.selectFrom("webhook_deliveries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

  it("a receiver that hangs up mid-body stops nobody: another user's delivery arrives within its deadline", async () => {
    const stalled = await endpointWithDelivery("user-a", "/hang-up");
    const endless = await endpointWithDelivery("user-c", "/endless");
    await until("the hanging-up receiver was called", async () => (hungUp.includes(stalled) ? true : undefined), 5_000);
    const other = await endpointWithDelivery("user-b", "/ok");
    await until("user b's delivery arrived", async () => (arrived.includes(other) ? true : undefined), TIMEOUT_MS + 2_000);
    expect((await row(other)).status).toBe("succeeded");
    // Each stuck attempt ended within its deadline and counts as one attempt.
    for (const id of [stalled, endless]) {
      const attempted = await until(`attempt ${id} settled`, async () => {
        const r = await row(id);
        return r.attempts > 0 ? r : undefined;
      }, TIMEOUT_MS + 3_000);
      expect(attempted.locked_until).toBeNull();
    }
  }, 20_000);
});
