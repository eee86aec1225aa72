import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { TranscriptionCreatedSchema } from "@transcribe/proto/events/v1/events";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newEvent, PgBossEventBus, toEnvelope } from "../../src/index.js";
import { count, createTestDatabases, fastBus, waitFor, type TestDatabases } from "./helpers.js";

const repoRoot = path.resolve(import.meta.dirname, "../../../..");
const script = path.join(import.meta.dirname, "fixtures/consumer-process.ts");

interface Consumer {
  child: ChildProcess;
  /** Resolves with the first stdout line matching the pattern. */
  line(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<NodeJS.Signals | number | null>;
  stderr(): string;
}

function startConsumer(dbs: TestDatabases, block: boolean): Consumer {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: repoRoot,
    env: { ...process.env, DATABASE_URL: dbs.serviceUrl, EVENTS_URL: dbs.eventsUrl, BLOCK: block ? "1" : "0", LOG_LEVEL: "silent" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  createInterface({ input: child.stdout! }).on("line", (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
  return {
    child,
    exited,
    stderr: () => stderr,
    line(pattern, timeoutMs = 15_000) {
      const seen = lines.find((l) => pattern.test(l));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`No line ${pattern} within ${timeoutMs} ms; stderr:\n${stderr}`)), timeoutMs);
        void exited.then((how) => reject(new Error(`Consumer exited (${how}) before ${pattern}; stderr:\n${stderr}`)));
        waiters.push({
          pattern,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
  };
}

describe("a consumer killed mid-delivery (child processes, real PostgreSQL)", () => {
  let dbs: TestDatabases;
  let publisher: PgBossEventBus;
  const children: Consumer[] = [];

  beforeAll(async () => {
    dbs = await createTestDatabases("kill");
    publisher = new PgBossEventBus({ url: dbs.eventsUrl, ...fastBus });
    await publisher.start();
  });
  afterAll(async () => {
    for (const c of children) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill("SIGKILL");
    await publisher?.stop();
    await dbs?.cleanup();
  });

  it("gets the event again after SIGKILL and applies its effect exactly once", async () => {
    const first = startConsumer(dbs, true);
    children.push(first);
    await first.line(/^READY$/);

    // One publish, so the consumer fetches both in one batch and hangs on both.
    const inside = newEvent(TranscriptionCreatedSchema, { jobId: "inside", userId: "u" });
    const afterCommit = newEvent(TranscriptionCreatedSchema, { jobId: "after-commit", userId: "u" });
    await publisher.publish([toEnvelope(inside), toEnvelope(afterCommit)]);
    await first.line(/^BLOCKED inside /);
    await first.line(/^BLOCKED after-commit /);

    // Mid-delivery: "inside" has its effect uncommitted, "after-commit" committed but unacknowledged.
    expect(await count(dbs.service, sql`select count(*) as n from effects where event_id = ${inside.id}`)).toBe(0);
    expect(await count(dbs.service, sql`select count(*) as n from effects where event_id = ${afterCommit.id}`)).toBe(1);

    first.child.kill("SIGKILL");
    expect(await first.exited).toBe("SIGKILL");

    const second = startConsumer(dbs, false);
    children.push(second);
    await second.line(/^READY$/);
    const deliveries = (id: string) => count(dbs.service, sql`select count(*) as n from deliveries where event_id = ${id}`);
    await waitFor(async () => (await deliveries(inside.id)) >= 2 && (await deliveries(afterCommit.id)) >= 2, 15_000, "redelivery");
    await waitFor(async () => (await count(dbs.service, sql`select count(*) as n from effects where event_id = ${inside.id}`)) >= 1, 5_000);
    // Room for any further (wrong) redelivery to show up.
    await new Promise((r) => setTimeout(r, 500));

    for (const event of [inside, afterCommit]) {
      expect(await deliveries(event.id)).toBeGreaterThanOrEqual(2);
      expect(await count(dbs.service, sql`select count(*) as n from effects where event_id = ${event.id}`)).toBe(1);
      expect(await count(dbs.service, sql`select count(*) as n from platform_processed_events where event_id = ${event.id}`)).toBe(1);
    }
    const pids = await sql<{ pid: number }>`select distinct pid from deliveries`.execute(dbs.service.db);
    expect(pids.rows.map((r) => r.pid).sort()).toEqual([first.child.pid, second.child.pid].sort());

    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });
});
