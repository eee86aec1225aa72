/**
 * Two small services for the observability test, each started as its own process the
 * way the launcher starts a real one (node --import tsx --import the telemetry preload):
 *
 * - FIXTURE_ROLE=caller ("obs-caller"): GET /hop calls the callee's HealthService over
 *   Connect, then writes a FileUploaded event to its outbox and logs "hop done".
 * - FIXTURE_ROLE=callee ("obs-callee"): answers HealthService (every service does) and
 *   consumes media.files, logging "event consumed".
 */
import { randomUUID } from "node:crypto";
import { FileUploadedSchema } from "@transcribe/proto/events/v1/events";
import { HealthService } from "@transcribe/proto/health/v1/health";
import { z } from "zod";
import { createServiceClient, enqueueEvents, env, newEvent, runService } from "../../src/index.js";

if (process.env.FIXTURE_ROLE === "caller") {
  await runService({
    name: "obs-caller",
    defaultPort: 0,
    config: z.object({ CALLEE_URL: env.httpUrl() }),
    migrations: {},
    build: ({ config, database, logger }) => {
      const callee = createServiceClient(HealthService, config.CALLEE_URL, { timeoutMs: 5_000 });
      return {
        configure(app) {
          app.get("/hop", async () => {
            const health = await callee.check({});
            const event = newEvent(FileUploadedSchema, { fileId: randomUUID(), userId: "user-1", fileName: "a.mp3", fileSize: 1n });
            await database!.db.transaction().execute((trx) => enqueueEvents(trx, [event]));
            logger.info({ eventId: event.id }, "hop done");
            return { eventId: event.id, calleeOk: health.ok };
          });
        },
      };
    },
  });
} else {
  await runService({
    name: "obs-callee",
    defaultPort: 0,
    config: z.object({}),
    migrations: {},
    build: ({ logger }) => ({
      subscriptions: [
        {
          topics: ["media.files"],
          handler: async (envelope) => {
            logger.info({ eventId: envelope.id }, "event consumed");
          },
        },
      ],
      // Background work starts after the subscriptions: from here on no event is missed.
      background: [{ start: () => logger.info("ready for events"), stop: async () => {} }],
    }),
  });
}
