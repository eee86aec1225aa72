import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createDatabase, eventTopology, newEvent, PgBossEventBus, toEnvelope, type Database } from "@transcribe/platform";
import { createTestDatabase, freePort, serviceKeyEnv } from "@transcribe/platform/testing";
import { TranscriptDeletedSchema } from "@transcribe/proto/events/v1/events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExportDatabase } from "../src/db/schema.js";
import { inCi, machineFonts } from "./helpers.js";

/**
 * The service as `npm start` runs it: its own process through runService, migrations,
 * the real embedded event bus, readiness, and a TranscriptDeleted published on the bus
 * reaching its consumer.
 */
describe.skipIf(!machineFonts() && !inCi)("the export process", () => {
  let serviceDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let eventsDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataDir: string;
  let child: ChildProcess;
  let output = "";
  let port: number;

  beforeAll(async () => {
    serviceDb = await createTestDatabase("export_proc");
    eventsDb = await createTestDatabase("export_proc_events");
    dataDir = await mkdtemp(path.join(tmpdir(), "export-process-"));
    port = await freePort();
    child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "../src/main.ts")], {
      env: {
        ...process.env,
        PORT: String(port),
        LOG_LEVEL: "info",
        DATABASE_URL: serviceDb.url,
        EVENT_BUS_DATABASE_URL: eventsDb.url,
        DATA_DIR: dataDir,
        EXPORT_SWEEP_INTERVAL_SECONDS: "1",
        ...(await serviceKeyEnv("export")).env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const deadline = Date.now() + 45_000;
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0);
      if (ready === 200) break;
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`export did not become ready:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }, 60_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    }
    await serviceDb?.drop();
    await eventsDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("starts, warms its renderers up and keeps an install signing key", async () => {
    const until = Date.now() + 20_000;
    while (!output.includes("pdf and docx renderers ready") && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    expect(output).toContain("pdf and docx renderers ready");
    expect(output).not.toMatch(/"level":(40|50|60)/);
    expect((await stat(path.join(dataDir, "secrets", "storage-signing.key"))).isFile()).toBe(true);
  });

  it("removes a deleted transcript's exports when TranscriptDeleted arrives on the bus", async () => {
    const database: Database<ExportDatabase> = createDatabase<ExportDatabase>(serviceDb.url, { max: 2 });
    const key = "user-1/transcript-1/0b7f6c1e-0000-4000-8000-000000000001.txt";
    const file = path.join(dataDir, "exports", ...key.split("/"));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, "hello\n");
    await database.db
      .insertInto("exports")
      .values({
        id: "0b7f6c1e-0000-4000-8000-000000000001",
        user_id: "user-1",
        transcription_id: "transcript-1",
        format: "txt",
        object_key: key,
        file_name: "hello.txt",
        content_type: "text/plain; charset=utf-8",
        size_bytes: 6,
        expires_at: new Date(Date.now() + 3_600_000),
      })
      .execute();
    const bus = new PgBossEventBus({ url: eventsDb.url, topology: eventTopology, max: 2 });
    await bus.start();
    try {
      await bus.publish([toEnvelope(newEvent(TranscriptDeletedSchema, { transcriptId: "transcript-1", userId: "user-1" }))]);
      const until = Date.now() + 20_000;
      let rows = 1;
      while (rows > 0 && Date.now() < until) {
        rows = (await database.db.selectFrom("exports").select("id").execute()).length;
        if (rows > 0) await new Promise((r) => setTimeout(r, 200));
      }
      expect(rows).toBe(0);
      await expect(stat(file)).rejects.toMatchObject({ code: "ENOENT" });
    } finally {
      await bus.stop();
      await database.close();
    }
  }, 40_000);

  it("stops cleanly on SIGTERM", async () => {
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
  }, 20_000);
});
