import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Client } from "@connectrpc/connect";
import { createServiceClient } from "@transcribe/platform";
import { createTestDatabase, freePort } from "@transcribe/platform/testing";
import { MediaService as MediaRpc } from "@transcribe/proto/media/v1/media";
import { STORAGE_ROUTE_PREFIX } from "../src/app.js";

export interface MediaProcess {
  child: ChildProcess;
  url: string;
  client: Client<typeof MediaRpc>;
  /** Scratch directory of the processing worker (MEDIA_WORK_DIR). */
  workDir: string;
  storageDir: string;
  output(): string;
  alive(): boolean;
  stop(): Promise<void>;
}

/**
 * The media service as `npm start` runs it: src/main.ts in its own Node process
 * (runService, migrations, embedded event bus), on a database of its own. A crash is
 * a dead process here, not an exception a test could catch.
 */
export async function startMediaProcess(env: Record<string, string> = {}): Promise<MediaProcess> {
  const [serviceDb, eventsDb] = await Promise.all([createTestDatabase("media_proc"), createTestDatabase("media_proc_events")]);
  const dir = await mkdtemp(path.join(os.tmpdir(), "media-process-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const workDir = path.join(dir, "work");
  const storageDir = path.join(dir, "storage");
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve(import.meta.dirname, "../src/main.ts")], {
    env: {
      ...process.env,
      DATABASE_URL: serviceDb.url,
      EVENT_BUS_DATABASE_URL: eventsDb.url,
      HOST: "127.0.0.1",
      PORT: String(port),
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "info",
      DATA_DIR: dir,
      STORAGE_DIR: storageDir,
      STORAGE_PUBLIC_URL: `${url}${STORAGE_ROUTE_PREFIX}`,
      MEDIA_WORK_DIR: workDir,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const alive = () => child.exitCode === null && child.signalCode === null;

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (!alive()) throw new Error(`media exited during start-up:\n${output}`);
    const ready = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`media not ready after 60 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }

  return {
    child,
    url,
    client: createServiceClient(MediaRpc, url, { timeoutMs: 30_000 }),
    workDir,
    storageDir,
    output: () => output,
    alive,
    async stop() {
      if (alive()) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      await Promise.all([serviceDb.drop(), eventsDb.drop()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
