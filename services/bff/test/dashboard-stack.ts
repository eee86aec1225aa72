import type { ServiceServer } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import type { JobRunner } from "@transcribe/transcription/worker/job-runner";
import type { AuthHarness } from "../../auth/test/harness.js";
import type { MediaHarness } from "../../media/test/harness.js";
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
    stop: () => stack.stop(),
  };
}
