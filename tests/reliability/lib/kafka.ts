import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "@transcribe/platform/testing";
import { repoRoot } from "@transcribe/embedded/config";

const run = promisify(execFile);
const script = path.join(repoRoot, "deploy/kafka/kafka.sh");

/**
 * A Kafka broker of the test's own (deploy/kafka/kafka.sh on other ports and another
 * data directory), so restarting it does not disturb the broker CI shares between the
 * other test files running at the same time.
 */
export interface OwnBroker {
  brokers: string;
  restart(downMs: number): Promise<void>;
  stop(): Promise<void>;
}

/** Whether this machine runs Kafka tests (CI exports KAFKA_BROKERS; REQUIRE_KAFKA=1 makes it mandatory). */
export function kafkaWanted(): boolean {
  return Boolean(process.env.KAFKA_BROKERS?.trim()) || process.env.REQUIRE_KAFKA === "1";
}

export async function startOwnBroker(): Promise<OwnBroker> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "reliability-kafka-"));
  const port = await freePort();
  const env = {
    ...process.env,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(await freePort()),
    KAFKA_DATA_DIR: dataDir,
    KAFKA_HEAP_OPTS: "-Xms128m -Xmx512m",
  };
  const kafka = (command: "start" | "stop") => run("bash", [script, command], { env, timeout: 180_000 });
  await kafka("start");
  return {
    brokers: `127.0.0.1:${port}`,
    async restart(downMs) {
      await kafka("stop");
      await new Promise((r) => setTimeout(r, downMs));
      await kafka("start");
    },
    async stop() {
      await kafka("stop").catch(() => {});
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
