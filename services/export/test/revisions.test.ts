import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  createDatabase,
  createLogger,
  createServiceClient,
  migrateToLatest,
  outboxMigrations,
  startServiceServer,
  type Database,
  type EventEnvelope,
  type ServiceServer,
} from "@transcribe/platform";
import { freePort, createTestDatabase } from "@transcribe/platform/testing";
import { TranscriptEditedSchema } from "@transcribe/proto/events/v1/events";
import { ExportFormat, ExportService } from "@transcribe/proto/export/v1/export";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { parseSync, type NodeCue } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completedTranscription, wordTimedFixture } from "../../transcription/test/completed.js";
import { migratedDatabase, startMediaServer, startTranscriptionApi } from "../../transcription/test/helpers.js";
import { exportConfigSchema } from "../src/config.js";
import { migrations } from "../src/db/migrations.js";
import type { ExportDatabase } from "../src/db/schema.js";
import { buildExportService, type ExportService as BuiltService } from "../src/service.js";
import { inCi, machineFonts } from "./helpers.js";

const fonts = machineFonts();
const logger = createLogger("export-revisions-test", "silent");

/**
 * Exports of edited transcripts, against the real transcription service (its own
 * database, revisions and outbox): the latest revision by default, any revision by
 * number, and TranscriptEdited dropping files of the revision an edit replaced.
 */
describe.skipIf(!fonts && !inCi)("exports of edited transcripts", () => {
  let transcriptionDb: Awaited<ReturnType<typeof migratedDatabase>>;
  let media: Awaited<ReturnType<typeof startMediaServer>>;
  let transcription: Awaited<ReturnType<typeof startTranscriptionApi>>;
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: Database<ExportDatabase>;
  let service: BuiltService;
  let server: ServiceServer;
  let dataDir: string;
  let client: ReturnType<typeof createServiceClient<typeof ExportService>>;

  beforeAll(async () => {
    [transcriptionDb, media, testDb] = await Promise.all([migratedDatabase(), startMediaServer(), createTestDatabase("export")]);
    transcription = await startTranscriptionApi(transcriptionDb.db, media.url);
    database = createDatabase<ExportDatabase>(testDb.url, { max: 4 });
    await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
    dataDir = await mkdtemp(path.join(tmpdir(), "export-revisions-"));
    const port = await freePort();
    const config = exportConfigSchema.parse({ TRANSCRIPTION_URL: transcription.server.url, DATA_DIR: dataDir, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` });
    service = await buildExportService({
      config,
      logger,
      database,
      fonts: fonts!,
      transcriptionClient: createServiceClient(TranscriptionService, transcription.server.url),
    });
    server = await startServiceServer({ name: "export", host: "127.0.0.1", port, logger, routes: service.parts.routes!, configure: service.parts.configure! });
    client = createServiceClient(ExportService, server.url);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
    await transcription?.close();
    await media?.close();
    await database?.close();
    await testDb?.drop();
    await transcriptionDb?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  async function download(url: string): Promise<string> {
    const response = await fetch(url);
    expect(response.status).toBe(200);
    return response.text();
  }

  const cues = (text: string) => parseSync(text).filter((n): n is NodeCue => n.type === "cue").map((n) => n.data);

  async function transcriptionOutbox(): Promise<EventEnvelope[]> {
    const rows = (await transcriptionDb.db.selectFrom("platform_outbox" as never).selectAll().orderBy("seq" as never).execute()) as Array<{
      id: string;
      type: string;
      topic: string;
      key: string;
      payload: Uint8Array;
      occurred_at: Date;
    }>;
    return rows
      .filter((r) => r.type === TranscriptEditedSchema.typeName)
      .map((r) => ({ id: r.id, type: r.type, topic: r.topic as EventEnvelope["topic"], key: r.key, payload: r.payload, occurredAt: r.occurred_at }));
  }

  it("exports the latest revision, any revision by number, and drops stale files on TranscriptEdited", async () => {
    const user = "user-editor";
    const id = await completedTranscription(transcriptionDb.db, user);
    const { transcription: before } = await transcription.client.getTranscription({ userId: user, id });
    const segment = before!.result!.segments[0]!;
    const renew = segment.words.find((w) => w.word === "renew")!;

    // An export of revision 1 taken as "the current one", and one asked for by number.
    const stale = await client.createExport({ userId: user, transcriptionId: id, format: ExportFormat.SRT });
    const pinned = await client.createExport({ userId: user, transcriptionId: id, format: ExportFormat.TXT, revision: 1 });
    expect((await fetch(stale.downloadUrl)).status).toBe(200);

    const edits = before!.result!.segments.map((s) => ({ id: s.id, text: s.text }));
    edits[0]!.text = edits[0]!.text.replace("renew", "review");
    await transcription.client.saveTranscript({ userId: user, id, baseRevision: 1, segments: edits });

    for (const format of [ExportFormat.SRT, ExportFormat.VTT]) {
      const { downloadUrl } = await client.createExport({ userId: user, transcriptionId: id, format });
      const cue = cues(await download(downloadUrl)).find((c) => c.text.includes("review"))!;
      expect(cue, `format ${format}`).toBeDefined();
      // Cue times are whole milliseconds, the segment's are not.
      expect(cue.start).toBeGreaterThanOrEqual(Math.floor(segment.start * 1000));
      expect(cue.end).toBeLessThanOrEqual(Math.ceil(segment.end * 1000));
      expect(cue.start).toBeLessThanOrEqual(renew.start * 1000);
    }
    const old = await client.createExport({ userId: user, transcriptionId: id, format: ExportFormat.TXT, revision: 1 });
    const oldText = await download(old.downloadUrl);
    expect(oldText).toContain("renew");
    expect(oldText).not.toContain("review");
    const missing = await client.createExport({ userId: user, transcriptionId: id, format: ExportFormat.TXT, revision: 9 }).catch((e: unknown) => ConnectError.from(e));
    expect(missing).toBeInstanceOf(ConnectError);
    expect((missing as ConnectError).code).toBe(Code.NotFound);
    expect((missing as ConnectError).rawMessage).toBe("Revision 9 not found");

    const handler = service.parts.subscriptions![0]!.handler;
    const events = await transcriptionOutbox();
    expect(events).toHaveLength(1);
    await handler(events[0]!);
    await handler(events[0]!); // redelivered: nothing more happens
    const left = await database.db.selectFrom("exports").select(["revision", "pinned", "format"]).where("transcription_id", "=", id).orderBy("created_at").execute();
    // The srt of revision 1 taken as "current" is gone; the pinned ones and revision 2's stay.
    expect(left).toEqual([
      { revision: 1, pinned: true, format: "txt" },
      { revision: 2, pinned: false, format: "srt" },
      { revision: 2, pinned: false, format: "vtt" },
      { revision: 1, pinned: true, format: "txt" },
    ]);
    expect((await fetch(stale.downloadUrl)).status).toBe(404);
    expect((await fetch(pinned.downloadUrl)).status).toBe(200);
    expect(wordTimedFixture.segments.length).toBe(before!.result!.segments.length);
  });
});
