import { readFile, stat } from "node:fs/promises";
import type { ServiceServer } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import type { JobRunner } from "@transcribe/transcription/worker/job-runner";
import type { AuthHarness } from "../../auth/test/harness.js";
import type { MediaHarness } from "../../media/test/harness.js";
import { expect } from "vitest";
import { startStack, type Stack } from "./stack.js";

/**
 * The dashboard's product behind the BFF for a test: the shared stack (test/stack.ts) with
 * media's storage links on this BFF, the worker with the diarizer, and two signed-in users
 * (`alice`, `bob`: cookie headers).
 */
export interface DashboardStack {
  auth: AuthHarness;
  media: MediaHarness;
  database: Stack["database"];
  transcription: ServiceServer;
  worker: JobRunner;
  bff: Awaited<ReturnType<Stack["startBff"]>>["bff"];
  origin: string;
  dir: string;
  alice: string;
  bob: string;
  /** A request to the BFF as the browser with `cookie` (or none), with a JSON body when given. */
  api(cookie: string | undefined, method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Uploads a WAV file the way the SPA does (POST /api/v1/upload, then PUT to the signed link); the file's id. */
  upload(cookie: string, file: string, duration: number): Promise<string>;
  stop(): Promise<void>;
}

/** bffEnv: more BFF settings, e.g. the URL of a service the stack does not start. */
export async function startDashboardStack(name: string, bffEnv: Record<string, string> = {}): Promise<DashboardStack> {
  // Media signs links to the BFF's storage route, so the BFF's port is chosen first.
  const bffPort = await freePort();
  const stack = await startStack({
    name,
    media: { env: { STORAGE_PUBLIC_URL: `http://127.0.0.1:${bffPort}/api/v1/storage` } },
    worker: { diarizer: true },
  });
  const { bff, origin } = await stack.startBff(bffEnv, bffPort);
  const api: DashboardStack["api"] = (cookie, method, url, body, headers = {}) =>
    fetch(`${origin}${url}`, {
      method,
      headers: { ...headers, ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    auth: stack.auth,
    media: stack.media!,
    database: stack.database,
    transcription: stack.transcription,
    worker: stack.worker!,
    bff,
    origin,
    dir: stack.dir,
    alice: await stack.signIn(`alice-${name}@example.com`),
    bob: await stack.signIn(`bob-${name}@example.com`),
    api,
    async upload(cookie, file, duration) {
      const size = (await stat(file)).size;
      const started = await api(cookie, "POST", "/api/v1/upload", { file_name: "speech.wav", file_size: size, content_type: "audio/wav", duration });
      expect(started.status).toBe(200);
      const { upload_url, file_id } = (await started.json()) as { upload_url: string; file_id: string };
      const put = await fetch(upload_url, { method: "PUT", body: await readFile(file), headers: { "content-type": "audio/wav" } });
      expect(put.status).toBe(200);
      return file_id;
    },
    stop: () => stack.stop(),
  };
}
