/**
 * Lists and replays dead letters: events a consumer gave up on after its retries.
 *
 *   npx tsx services/platform/src/events/dead-letters.ts list   [filters] [--json]
 *   npx tsx services/platform/src/events/dead-letters.ts replay (--consumer NAME | --event ID ... | --all) [filters]
 *
 * Filters: --consumer NAME, --topic TOPIC, --event ID (repeatable), --limit N.
 * The bus is the one the services use: EVENT_BUS=embedded (EVENT_BUS_DATABASE_URL) or
 * EVENT_BUS=kafka (KAFKA_BROKERS, KAFKA_TOPIC_PREFIX, ...). A replay delivers each event
 * again to the consumer that gave up on it, and to no other, with a fresh retry budget.
 */
import { parseArgs } from "node:util";
import { loadConfig } from "../config.js";
import { ConfigError } from "../errors.js";
import { createLogger } from "../logger.js";
import type { DeadLetter, DeadLetterFilter } from "./bus.js";
import { createEventBus, eventBusConfigProblems, eventBusConfigSchema } from "./bus-config.js";
import { topics, type Topic } from "./catalog.js";
import { envelopeToJson } from "./envelope.js";

const usage = `usage: dead-letters.ts list [--consumer NAME] [--topic TOPIC] [--event ID]... [--limit N] [--json]
       dead-letters.ts replay (--consumer NAME | --event ID... | --all) [--topic TOPIC] [--limit N]`;

function fail(message: string): never {
  process.stderr.write(`dead-letters: ${message}\n${usage}\n`);
  process.exit(2);
}

const { positionals, values } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        consumer: { type: "string" },
        topic: { type: "string" },
        event: { type: "string", multiple: true },
        limit: { type: "string" },
        all: { type: "boolean", default: false },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    return fail((error as Error).message);
  }
})();

if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
const command = positionals[0];
if (command !== "list" && command !== "replay") fail(`unknown command "${command ?? ""}"`);
if (values.topic && !(topics as readonly string[]).includes(values.topic)) fail(`unknown topic "${values.topic}" (one of ${topics.join(", ")})`);
const limit = values.limit === undefined ? undefined : Number(values.limit);
if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) fail("--limit must be a positive integer");
if (command === "replay" && !values.consumer && !values.event?.length && !values.all) {
  fail("replay needs --consumer, --event or --all (a replay of everything must be asked for)");
}

const filter: DeadLetterFilter = {
  ...(values.consumer ? { consumer: values.consumer } : {}),
  ...(values.topic ? { topic: values.topic as Topic } : {}),
  ...(values.event?.length ? { eventIds: values.event } : {}),
  ...(limit !== undefined ? { limit } : {}),
};

let config;
try {
  config = loadConfig(eventBusConfigSchema);
  const problems = eventBusConfigProblems(config);
  if (problems.length > 0) throw new ConfigError(problems);
} catch (error) {
  process.stderr.write(`dead-letters: ${(error as Error).message}\n`);
  process.exit(1);
}

const logger = createLogger("dead-letters", process.env.LOG_LEVEL ?? "warn");
const bus = createEventBus(config, "dead-letters", logger);

function row(letter: DeadLetter): string {
  const { envelope } = letter;
  const error = letter.error.replace(/\s+/g, " ");
  return [
    letter.failedAt.toISOString(),
    letter.consumer,
    envelope.topic,
    envelope.type.replace(/^transcribe\.events\.v1\./, ""),
    envelope.key,
    envelope.id,
    `${letter.attempts} attempts`,
    error.length > 120 ? `${error.slice(0, 117)}...` : error,
  ].join("  ");
}

let exitCode = 0;
try {
  await bus.start();
  if (command === "list") {
    const letters = await bus.listDeadLetters(filter);
    for (const letter of letters) {
      process.stdout.write(
        values.json
          ? `${JSON.stringify({ ref: letter.ref, consumer: letter.consumer, error: letter.error, attempts: letter.attempts, failedAt: letter.failedAt.toISOString(), envelope: envelopeToJson(letter.envelope) })}\n`
          : `${row(letter)}\n`,
      );
    }
    if (!values.json) process.stderr.write(`${letters.length} dead letter${letters.length === 1 ? "" : "s"} (${config.EVENT_BUS} bus)\n`);
  } else {
    const replayed = await bus.replayDeadLetters(filter);
    process.stdout.write(`replayed ${replayed} dead letter${replayed === 1 ? "" : "s"}\n`);
  }
} catch (error) {
  process.stderr.write(`dead-letters: ${(error as Error).message}\n`);
  exitCode = 1;
} finally {
  await bus.stop().catch(() => {});
}
process.exit(exitCode);
