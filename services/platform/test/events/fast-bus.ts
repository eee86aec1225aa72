import type { PgBossEventBusOptions } from "../../src/events/index.js";

/**
 * Timings short enough for tests: a crashed delivery comes back after about
 * expire (2 s) + maintenance (1 s), and idle queues are polled every 100 ms.
 */
export const fastBus = {
  expireInSeconds: 2,
  maintenanceIntervalSeconds: 1,
  pollingIntervalMs: 100,
  retryLimit: 5,
  retryDelay: 0,
  retryBackoff: false,
  max: 3,
  stopTimeoutMs: 2_000,
} satisfies Partial<PgBossEventBusOptions>;
