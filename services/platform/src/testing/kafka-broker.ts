import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);
const script = path.resolve(import.meta.dirname, "../../../../deploy/kafka/kafka.sh");

/**
 * A Kafka broker of the test's own (deploy/kafka/kafka.sh on other ports and another
 * data directory), so stopping and restarting it does not disturb the broker the other
 * test files running at the same time share.
 */
export interface OwnBroker {
  brokers: string;
  /** Stops the broker; its data (topics, offsets) stays for start(). */
  stopBroker(): Promise<void>;
  startBroker(): Promise<void>;
  restart(downMs: number): Promise<void>;
  /** Stops it for good and deletes its data. */
  stop(): Promise<void>;
}

export async function startOwnBroker(): Promise<OwnBroker> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "own-kafka-"));
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
    stopBroker: () => kafka("stop").then(() => {}),
    startBroker: () => kafka("start").then(() => {}),
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
