import { createHash, randomUUID } from "node:crypto";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConnectError } from "@connectrpc/connect";
import { createLogger, loadConfig, startServiceServer, type ServiceServer } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { afterAll, describe, expect, it } from "vitest";
import { buildBff } from "@transcribe/bff/app";
import { bffConfigSchema } from "@transcribe/bff/config";
import { upstreamNames } from "@transcribe/bff/upstreams";
import { engineEnvCurrent, venvPython } from "../src/provision/engine-env.js";
import { findPython } from "../src/provision/python.js";
import { writeStatus } from "../src/provision/status-file.js";
import {
  engineUnavailable,
  startWorker,
  synthesize,
  until,
  words,
  workerTestStack,
} from "./helpers.js";

// Readiness while the launcher prepares the engine (decision 0019): the real worker process
// reads the launcher's status file, the real API answers the model list from the worker's
// report, the real BFF composes health; a job started meanwhile waits and completes.

describe("finding Python", () => {
  it("says exactly what to install when no candidate is a usable Python 3.9+", async () => {
    const result = await findPython([["/nonexistent/python3"], ["false"]]);
    expect(result).toHaveProperty("problem");
    const problem = (result as { problem: string }).problem;
    expect(problem).toMatch(/^Python 3\.9\+ not found \(\/nonexistent\/python3: not found; false: /);
    expect(problem).toContain("apt-get install python3 python3-venv");
  });

  it("finds this machine's python3", async () => {
    const result = await findPython();
    expect(result).toHaveProperty("found");
  });
});

describe("the engine's venv", () => {
  it("is current only while requirements.txt hashes to the stamp kept in it", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "transcribe-venv-"));
    const requirements = path.join(dir, "requirements.txt");
    await writeFile(requirements, "faster-whisper==1.2.1\n");
    const venv = path.join(dir, "venv");
    expect(await engineEnvCurrent(venv, requirements)).toBe(false);
    await mkdir(path.dirname(venvPython(venv)), { recursive: true });
    await writeFile(venvPython(venv), "");
    await writeFile(path.join(venv, ".requirements.sha256"), `${createHash("sha256").update("faster-whisper==1.2.1\n").digest("hex")}\n`);
    expect(await engineEnvCurrent(venv, requirements)).toBe(true);
    await writeFile(requirements, "faster-whisper==1.2.2\n");
    expect(await engineEnvCurrent(venv, requirements)).toBe(false);
  });
});

describe.skipIf(engineUnavailable)("while the speech engine is prepared", () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => {});
  });

  it("health is degraded, models say why, and a job started meanwhile completes once ready", { timeout: 300_000 }, async () => {
    const { database, media, api, dir, env } = await workerTestStack(cleanup, "engine-readiness");
    const statusFile = path.join(dir, "engine", "status.json");
    await writeStatus(statusFile, { state: "preparing", message: "downloading Whisper base: 55 of 145 MB", done: 55_000_000, total: 145_000_000 });

    const workerPort = await freePort();
    const output: string[] = [];
    const worker = startWorker(
      { ...env, PORT: String(workerPort), ENGINE_STATUS_FILE: statusFile },
      output,
    );
    cleanup.push(async () => worker.kill("SIGKILL"));

    // The BFF in front of the real API and worker; the other services as bare healthy servers.
    const logger = createLogger("readiness-test", "silent");
    const others: ServiceServer[] = [];
    const urls: Record<string, string> = {
      TRANSCRIPTION_URL: api.server.url,
      TRANSCRIPTION_WORKER_URL: `http://127.0.0.1:${workerPort}`,
    };
    for (const name of upstreamNames.filter((n) => n !== "transcription" && n !== "transcription-worker")) {
      const server = await startServiceServer({ name, host: "127.0.0.1", port: 0, logger });
      others.push(server);
      urls[`${name.toUpperCase().replace(/-/g, "_")}_URL`] = server.url;
    }
    cleanup.push(() => Promise.all(others.map((s) => s.close())));
    const bff = await buildBff(loadConfig(bffConfigSchema, { ...urls, HEALTH_TIMEOUT_MS: "5000", WEB_DIST_DIR: "/nonexistent" }), logger);
    cleanup.push(() => bff.close());
    const health = async () => {
      const response = await bff.inject({ method: "GET", url: "/api/v1/health" });
      const body = response.json() as { status: string; services: Array<{ name: string; ok: boolean; status: string; detail?: string }> };
      return { code: response.statusCode, body, worker: body.services.find((s) => s.name === "transcription-worker")! };
    };
    const localModel = async (id: string) => (await api.client.listModels({})).models.find((m) => m.id === id)!;

    // 1. Preparing: the model list and health say so, with the progress.
    const preparing = await until(
      "the worker's 'preparing' report",
      async () => {
        const model = await localModel("whisper-base");
        return (model.reason ?? "").startsWith("Preparing") ? model : undefined;
      },
      60_000,
    );
    expect(preparing).toMatchObject({ available: false, preparing: true });
    expect(preparing.reason).toBe("Preparing the speech engine… 37% (downloading Whisper base: 55 of 145 MB)");
    expect((await localModel("whisper-tiny.en")).reason).toBe(preparing.reason);
    const degraded = await health();
    expect(degraded.code).toBe(200);
    expect(degraded.body.status).toBe("degraded");
    expect(degraded.worker).toMatchObject({ ok: false, status: "degraded" });
    expect(degraded.worker.detail).toBe(`whisper-base: ${preparing.reason}`);

    // 2. A job started now is accepted and waits (no attempt used, not failed).
    const script = "The engine was still being prepared when this recording arrived.";
    const speech = await synthesize(script, { dir });
    const userId = `user-${randomUUID()}`;
    const file = media.addFile({ userId, audioPath: speech.path, duration: speech.duration });
    const created = await api.client.createTranscription({ userId, fileId: file.id, settings: { model: "whisper-tiny.en", language: "en" } });
    await new Promise((r) => setTimeout(r, 4_000));
    const waiting = await database.db.selectFrom("transcription_jobs").selectAll().where("id", "=", created.jobId).executeTakeFirstOrThrow();
    expect(waiting).toMatchObject({ status: "pending", attempts: 0 });

    // 3. Ready: the worker checks the real engine, the job completes with the script's words.
    await writeStatus(statusFile, { state: "ready", message: "speech engine ready" });
    const done = await until(
      "the waiting job to finish",
      async () => {
        const row = await database.db.selectFrom("transcriptions").selectAll().where("id", "=", created.transcriptionId).executeTakeFirstOrThrow();
        return row.status === "completed" || row.status === "failed" ? row : undefined;
      },
      180_000,
    );
    expect(done.status, done.error ?? "").toBe("completed");
    const result = await api.client.getTranscription({ userId, id: created.transcriptionId });
    const heard = new Set(words(result.transcription!.result!.text));
    const expected = words(script);
    expect(expected.filter((w) => heard.has(w)).length / expected.length).toBeGreaterThan(0.8);
    expect((await localModel("whisper-base")).available).toBe(true);
    const ok = await until("health ok", async () => ((await health()).body.status === "ok" ? await health() : undefined), 30_000);
    expect(ok.worker).toMatchObject({ ok: true, status: "ok" });

    // 4. Unable: the reason reaches the model list and health, and new jobs are refused with it.
    const noPython = "Python 3.9+ not found (python3: not found): install Python 3.9+ with venv: apt-get install python3 python3-venv";
    await writeStatus(statusFile, { state: "unavailable", message: noPython });
    const unavailable = await until("the 'unavailable' report", async () => {
      const model = await localModel("whisper-base");
      return model.reason === noPython ? model : undefined;
    }, 60_000);
    expect(unavailable.available).toBe(false);
    expect((await health()).worker).toMatchObject({ status: "degraded", detail: `whisper-base: ${noPython}` });
    const refused = await api.client
      .createTranscription({ userId, fileId: file.id, settings: { model: "whisper-base", language: "en" } })
      .then(() => undefined, (error: unknown) => ConnectError.from(error));
    expect(refused?.rawMessage).toContain(noPython);
  });
});
