import path from "node:path";
import { repoRoot } from "./config.js";

export interface ProcessSpec {
  /** The name health reports and logs are prefixed with. */
  name: string;
  entry: string;
  /** Offset from SERVICE_PORT_BASE; the BFF uses BFF_PORT instead. */
  portOffset: number | "bff";
  /** The service's own database; the worker shares the transcription one. */
  database?: string;
}

/** Every process of the embedded mode, in start order (the BFF last: it depends on the rest). */
export const processes: readonly ProcessSpec[] = [
  { name: "auth", entry: "services/auth/src/main.ts", portOffset: 1, database: "auth" },
  { name: "media", entry: "services/media/src/main.ts", portOffset: 2, database: "media" },
  { name: "transcription", entry: "services/transcription/src/main.ts", portOffset: 3, database: "transcription" },
  { name: "transcription-worker", entry: "services/transcription/src/worker.ts", portOffset: 4, database: "transcription" },
  { name: "billing", entry: "services/billing/src/main.ts", portOffset: 5, database: "billing" },
  { name: "export", entry: "services/export/src/main.ts", portOffset: 6, database: "export" },
  { name: "blog", entry: "services/blog/src/main.ts", portOffset: 7, database: "blog" },
  { name: "notifier", entry: "services/notifier/src/main.ts", portOffset: 8, database: "notifier" },
  { name: "webhooks", entry: "services/webhooks/src/main.ts", portOffset: 9, database: "webhooks" },
  // Live sessions (decision 0030): engines held for streams in flight, no database.
  { name: "transcription-live", entry: "services/transcription/src/live-worker.ts", portOffset: 10 },
  { name: "bff", entry: "services/bff/src/main.ts", portOffset: "bff" },
];

/** The database the embedded event bus (pg-boss) keeps its queues in. */
export const eventsDatabase = "events";

export function databasesToCreate(): string[] {
  return [...new Set([...processes.flatMap((p) => (p.database ? [p.database] : [])), eventsDatabase])];
}

export function entryPath(spec: ProcessSpec): string {
  return path.join(repoRoot, spec.entry);
}

/** The variable a service's URL goes in, e.g. "transcription-worker" → TRANSCRIPTION_WORKER_URL. */
export function urlVariable(name: string): string {
  return `${name.toUpperCase().replace(/-/g, "_")}_URL`;
}
