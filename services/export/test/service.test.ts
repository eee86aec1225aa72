import { readdir } from "node:fs/promises";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  contentDisposition,
  createDatabase,
  createLogger,
  createServiceClient,
  eventTopology,
  migrateToLatest,
  newEvent,
  outboxMigrations,
  startServiceServer,
  toEnvelope,
  type Database,
  type ServiceServer,
} from "@transcribe/platform";
import { createTestDatabase, freePort } from "@transcribe/platform/testing";
import { TranscriptDeletedSchema, TranscriptSpeakerRenamedSchema, UserDeletedSchema } from "@transcribe/proto/events/v1/events";
import { ExportFormat, ExportFormatSchema, ExportService } from "@transcribe/proto/export/v1/export";
import { TranscriptionStatus } from "@transcribe/proto/transcription/v1/transcription";
import mammoth from "mammoth";
import { parseSync } from "subtitle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportConfigSchema, type ExportConfig } from "../src/config.js";
import { migrations } from "../src/db/migrations.js";
import type { ExportDatabase } from "../src/db/schema.js";
import { type ExportFormat as ExportFormatName, exportFileName, formatInfo, isExportFormat, renderRttm, renderTxt, toTranscriptJson } from "../src/domain/index.js";
import { ExportManager } from "../src/exports.js";
import { buildExportService, type ExportService as BuiltService } from "../src/service.js";
import { toTranscript } from "../src/transcripts.js";
import { fixtureTranscript } from "./fixtures/transcript.js";
import { inCi, machineFonts } from "./helpers.js";
import { TranscriptionStandIn, transcriptionOf } from "./transcription-stand-in.js";

const ALICE = "user-alice";
const BOB = "user-bob";
const DONE = "3f0e9a52-7d1c-4b8e-9a6f-000000000001";
const DONE_TOO = "3f0e9a52-7d1c-4b8e-9a6f-000000000002";
const BOBS = "3f0e9a52-7d1c-4b8e-9a6f-000000000003";
const RUNNING = "3f0e9a52-7d1c-4b8e-9a6f-000000000004";
const WAITING = "3f0e9a52-7d1c-4b8e-9a6f-000000000005";
const FAILED = "3f0e9a52-7d1c-4b8e-9a6f-000000000006";
const NO_RESULT = "3f0e9a52-7d1c-4b8e-9a6f-000000000007";
const TTL = 900;

const fonts = machineFonts();
const logger = createLogger("export-test", "silent");

describe.skipIf(!fonts && !inCi)("ExportService (real PostgreSQL, Connect, files and signed URLs)", () => {
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: Database<ExportDatabase>;
  let transcription: TranscriptionStandIn;
  let server: ServiceServer;
  let service: BuiltService;
  let storageDir: string;
  let dataDir: string;
  let baseUrl: string;
  let clock = Date.now();
  let client: ReturnType<typeof createServiceClient<typeof ExportService>>;

  beforeAll(async () => {
    testDb = await createTestDatabase("export");
    database = createDatabase<ExportDatabase>(testDb.url, { max: 4 });
    await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });

    transcription = await new TranscriptionStandIn().start(logger);
    transcription.put(ALICE, transcriptionOf(fixtureTranscript, DONE));
    transcription.put(ALICE, transcriptionOf({ ...fixtureTranscript, title: "talk.mp3" }, DONE_TOO));
    transcription.put(BOB, transcriptionOf({ ...fixtureTranscript, title: "Bob's" }, BOBS));
    transcription.put(ALICE, transcriptionOf(fixtureTranscript, RUNNING, TranscriptionStatus.TRANSCRIBING));
    transcription.put(ALICE, transcriptionOf(fixtureTranscript, WAITING, TranscriptionStatus.PENDING));
    transcription.put(ALICE, transcriptionOf(fixtureTranscript, FAILED, TranscriptionStatus.FAILED));
    transcription.put(ALICE, transcriptionOf(fixtureTranscript, NO_RESULT, TranscriptionStatus.COMPLETED, false));

    dataDir = await mkdtemp(path.join(tmpdir(), "export-service-"));
    storageDir = path.join(dataDir, "exports");
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const config: ExportConfig = exportConfigSchema.parse({
      TRANSCRIPTION_URL: transcription.url,
      DATA_DIR: dataDir,
      PUBLIC_BASE_URL: baseUrl,
      EXPORT_URL_TTL_SECONDS: String(TTL),
    });
    service = await buildExportService({ config, logger, database, fonts: fonts!, now: () => clock });
    server = await startServiceServer({
      name: "export",
      host: "127.0.0.1",
      port,
      logger,
      routes: service.parts.routes!,
      configure: service.parts.configure!,
      readiness: service.parts.readiness!,
    });
    client = createServiceClient(ExportService, server.url);
  });

  afterAll(async () => {
    await server?.close();
    await transcription?.stop();
    await database?.close();
    await testDb?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Stored objects (not the storage's sidecar files). */
  async function storedFiles(): Promise<string[]> {
    const entries = await readdir(storageDir, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries
      .filter((entry) => entry.isFile() && !entry.name.includes("~"))
      .map((entry) => path.relative(storageDir, path.join(entry.parentPath, entry.name)))
      .sort();
  }

  async function rows() {
    return database.db.selectFrom("exports").selectAll().orderBy("created_at").execute();
  }

  it("exports a PDF: the URL downloads it, named after the transcript, and expires in 15 minutes", async () => {
    const response = await client.createExport({ userId: ALICE, transcriptionId: DONE, format: ExportFormat.PDF, includeTimestamps: true });
    expect(response.format).toBe(ExportFormat.PDF);
    expect(timestampDate(response.expiresAt!).getTime()).toBe((Math.floor(clock / 1000) + TTL) * 1000);
    expect(response.downloadUrl.startsWith(`${baseUrl}/api/v1/storage/exports/`)).toBe(true);

    const download = await fetch(response.downloadUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get("content-type")).toBe("application/pdf");
    expect(download.headers.get("content-disposition")).toBe(contentDisposition(exportFileName(fixtureTranscript.title, "pdf")));
    expect(download.headers.get("content-disposition")).toContain("filename*=UTF-8''Interview_%20Gr%C3%BC%C3%9Fe");
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    const body = Buffer.from(await download.arrayBuffer());
    expect(body.subarray(0, 5).toString()).toBe("%PDF-");

    const [row] = await rows();
    expect(row).toMatchObject({ user_id: ALICE, transcription_id: DONE, format: "pdf", size_bytes: body.length });
    expect(row!.file_name).toBe("Interview_ Grüße aus München _ Привет _ 你好 _ مرحبا.pdf");
    expect(await storedFiles()).toEqual([row!.object_key]);
    expect(row!.object_key).toMatch(new RegExp(`^${ALICE}/${DONE}/[0-9a-f-]{36}\\.pdf$`));
  });

  it("exports every other format with its extension, content type and content", async () => {
    const expectations = [
      [ExportFormat.TXT, "txt", "text/plain; charset=utf-8"],
      [ExportFormat.DOCX, "docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"],
      [ExportFormat.SRT, "srt", "application/x-subrip; charset=utf-8"],
      [ExportFormat.VTT, "vtt", "text/vtt; charset=utf-8"],
      [ExportFormat.JSON, "json", "application/json; charset=utf-8"],
      [ExportFormat.RTTM, "rttm", "text/plain; charset=utf-8"],
    ] as const;
    const expected = toTranscript(transcriptionOf(fixtureTranscript, DONE));
    for (const [format, extension, contentType] of expectations) {
      const { downloadUrl } = await client.createExport({ userId: ALICE, transcriptionId: DONE, format, includeTimestamps: true });
      const download = await fetch(downloadUrl);
      expect(download.status).toBe(200);
      expect(download.headers.get("content-type")).toBe(contentType);
      expect(download.headers.get("content-disposition")).toContain(`.${extension}"; filename*=UTF-8''`);
      const body = Buffer.from(await download.arrayBuffer());
      if (extension === "txt") expect(body.toString("utf8")).toBe(renderTxt(expected, { includeTimestamps: true }));
      if (extension === "json") expect(JSON.parse(body.toString("utf8"))).toEqual(toTranscriptJson(expected));
      // No speakers in this transcript: an RTTM with no turns.
      if (extension === "rttm") expect(body.toString("utf8")).toBe(renderRttm(expected));
      if (extension === "srt" || extension === "vtt") expect(parseSync(body.toString("utf8")).filter((n) => n.type === "cue").length).toBeGreaterThan(10);
      if (extension === "docx") expect((await mammoth.extractRawText({ buffer: body })).value).toContain("[00:00:03] Grüße aus München!");
    }
    // The display name is still the uploaded file's name: its extension gives way to the format's.
    const { downloadUrl } = await client.createExport({ userId: ALICE, transcriptionId: DONE_TOO, format: ExportFormat.SRT });
    expect((await fetch(downloadUrl)).headers.get("content-disposition")).toBe('attachment; filename="talk.srt"');
  });

  it("exports every format of the proto enum (the registry's, docs/extending.md), each answered, stored and downloadable", async () => {
    for (const value of ExportFormatSchema.values.filter((v) => v.number !== 0)) {
      const name = value.localName.toLowerCase();
      expect(isExportFormat(name), name).toBe(true);
      const response = await client.createExport({ userId: ALICE, transcriptionId: DONE, format: value.number });
      expect(response.format, name).toBe(value.number);
      const download = await fetch(response.downloadUrl);
      expect(download.status, name).toBe(200);
      expect(download.headers.get("content-type"), name).toBe(formatInfo[name as ExportFormatName].contentType);
      expect(download.headers.get("content-disposition"), name).toContain(`.${formatInfo[name as ExportFormatName].extension}"`);
    }
  });

  it("refuses a tampered URL and, once it has expired, an untampered one (403)", async () => {
    const { downloadUrl } = await client.createExport({ userId: ALICE, transcriptionId: DONE, format: ExportFormat.TXT });
    const url = new URL(downloadUrl);
    const tampered = [
      (u: URL) => u.searchParams.set("sig", `${u.searchParams.get("sig")!.slice(0, -2)}AA`),
      (u: URL) => u.searchParams.set("fn", "evil.exe"),
      (u: URL) => u.searchParams.set("expires", String(Number(u.searchParams.get("expires")) + 3600)),
      (u: URL) => (u.pathname = u.pathname.replace(/\.txt$/, ".pdf")),
    ];
    for (const tamper of tampered) {
      const copy = new URL(url);
      tamper(copy);
      const response = await fetch(copy);
      expect(response.status, copy.href).toBe(403);
      expect(await response.json()).toEqual({ error: { code: "permission_denied", message: "This link is invalid or has been altered" } });
    }
    expect((await fetch(url)).status).toBe(200);
    clock += (TTL + 1) * 1000;
    try {
      const expired = await fetch(url);
      expect(expired.status).toBe(403);
      expect(await expired.json()).toEqual({ error: { code: "permission_denied", message: "This link has expired" } });
    } finally {
      clock -= (TTL + 1) * 1000;
    }
  });

  it("refuses unfinished, failed, foreign, missing and malformed requests with nothing rendered or stored", async () => {
    const filesBefore = await storedFiles();
    const rowsBefore = (await rows()).length;
    const cases: Array<[string, Parameters<typeof client.createExport>[0], Code, RegExp, boolean]> = [
      ["transcribing", { userId: ALICE, transcriptionId: RUNNING, format: ExportFormat.PDF }, Code.FailedPrecondition, /not finished yet/, true],
      ["pending", { userId: ALICE, transcriptionId: WAITING, format: ExportFormat.TXT }, Code.FailedPrecondition, /not finished yet/, true],
      ["failed", { userId: ALICE, transcriptionId: FAILED, format: ExportFormat.DOCX }, Code.FailedPrecondition, /failed, so there is nothing to export/, true],
      ["completed without result", { userId: ALICE, transcriptionId: NO_RESULT, format: ExportFormat.SRT }, Code.FailedPrecondition, /no result/, true],
      ["someone else's", { userId: ALICE, transcriptionId: BOBS, format: ExportFormat.PDF }, Code.NotFound, /^Transcription not found$/, true],
      ["missing", { userId: ALICE, transcriptionId: "no-such-id", format: ExportFormat.PDF }, Code.NotFound, /^Transcription not found$/, true],
      ["format unspecified", { userId: ALICE, transcriptionId: DONE, format: ExportFormat.UNSPECIFIED }, Code.InvalidArgument, /format must be one of txt, docx, pdf, srt, vtt, json or rttm/, false],
      ["unknown format", { userId: ALICE, transcriptionId: DONE, format: 99 as ExportFormat }, Code.InvalidArgument, /format must be one of/, false],
      ["no user", { userId: "", transcriptionId: DONE, format: ExportFormat.PDF }, Code.InvalidArgument, /user_id is required/, false],
      ["no transcription", { userId: ALICE, transcriptionId: "", format: ExportFormat.PDF }, Code.InvalidArgument, /transcription_id is required/, false],
    ];
    for (const [name, request, code, message, reachesTranscription] of cases) {
      const callsBefore = transcription.calls;
      const error = await client.createExport(request).then(
        () => undefined,
        (e: unknown) => ConnectError.from(e),
      );
      expect(error, name).toBeDefined();
      expect(error!.code, name).toBe(code);
      expect(error!.rawMessage, name).toMatch(message);
      expect(transcription.calls - callsBefore, name).toBe(reachesTranscription ? 1 : 0);
    }
    expect(await storedFiles()).toEqual(filesBefore);
    expect((await rows()).length).toBe(rowsBefore);
  });

  it("sweeps exports whose URL has expired, files and rows", async () => {
    const fresh = await client.createExport({ userId: BOB, transcriptionId: BOBS, format: ExportFormat.VTT });
    const keep = (await rows()).find((row) => row.transcription_id === BOBS)!;
    const others = (await rows()).filter((row) => row.id !== keep.id);
    expect(others.length).toBeGreaterThan(0);
    // Move the older exports' expiry into the past; Bob's stays valid.
    await database.db.updateTable("exports").set({ expires_at: new Date(clock - 1000) }).where("id", "!=", keep.id).execute();
    expect(await service.manager.sweepExpired()).toBe(others.length);
    expect((await rows()).map((row) => row.id)).toEqual([keep.id]);
    expect(await storedFiles()).toEqual([keep.object_key]);
    expect((await fetch(fresh.downloadUrl)).status).toBe(200);
    expect(await service.manager.sweepExpired()).toBe(0);
  });

  it("removes a transcript's exports on TranscriptDeleted and a user's on UserDeleted, once per event", async () => {
    const handler = service.parts.subscriptions![0]!.handler;
    for (const [userId, transcriptionId] of [[ALICE, DONE], [ALICE, DONE], [ALICE, DONE_TOO], [BOB, BOBS]] as const) {
      await client.createExport({ userId, transcriptionId, format: ExportFormat.JSON });
    }
    const byTranscript = async () => {
      const counts: Record<string, number> = {};
      for (const row of await rows()) counts[row.transcription_id] = (counts[row.transcription_id] ?? 0) + 1;
      return counts;
    };
    expect(await byTranscript()).toEqual({ [DONE]: 2, [DONE_TOO]: 1, [BOBS]: 2 });

    // A renamed speaker makes the transcript's earlier files stale: they go, others stay.
    await handler(toEnvelope(newEvent(TranscriptSpeakerRenamedSchema, { transcriptId: DONE_TOO, userId: ALICE, speakerId: "S1", oldName: "S1", newName: "Alice" })));
    expect(await byTranscript()).toEqual({ [DONE]: 2, [BOBS]: 2 });
    expect((await storedFiles()).filter((file) => file.includes(DONE_TOO))).toEqual([]);

    const deleted = toEnvelope(newEvent(TranscriptDeletedSchema, { transcriptId: DONE, userId: ALICE, rawKey: "r", processedKey: "p" }));
    await handler(deleted);
    await handler(deleted); // redelivered: nothing more happens
    expect(await byTranscript()).toEqual({ [BOBS]: 2 });
    expect((await storedFiles()).filter((file) => file.includes(DONE))).toEqual([]);

    await handler(toEnvelope(newEvent(UserDeletedSchema, { userId: ALICE })));
    expect(await byTranscript()).toEqual({ [BOBS]: 2 });
    expect((await storedFiles()).every((file) => file.startsWith(`${BOB}/`))).toBe(true);
    expect(await readdir(storageDir)).toEqual([BOB]);
  });

  it("consumes exactly the topics the event topology lists for it", () => {
    expect([...service.parts.subscriptions![0]!.topics].sort()).toEqual([...eventTopology.export].sort());
  });

  it("drops the file when the transcript is deleted while its export is being written", async () => {
    // The cleanup runs between the row insert and the file write; the export must then
    // fail as not found and leave nothing behind.
    const handler = service.parts.subscriptions![0]!.handler;
    const racing = new ExportManager({
      db: database.db,
      storage: new Proxy(service.storage, {
        get(target, property) {
          if (property === "putObject") {
            return async (...args: Parameters<typeof target.putObject>) => {
              await handler(toEnvelope(newEvent(TranscriptDeletedSchema, { transcriptId: BOBS, userId: BOB })));
              return target.putObject(...args);
            };
          }
          const value = Reflect.get(target, property, target) as unknown;
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      }),
      fonts: fonts!,
      logger,
      loadTranscript: async () => fixtureTranscript,
      urlTtlSeconds: TTL,
    });
    await expect(racing.create({ userId: BOB, transcriptionId: BOBS, format: "txt", includeTimestamps: false })).rejects.toMatchObject({
      code: "not_found",
    });
    expect(await rows()).toEqual([]);
    expect(await storedFiles()).toEqual([]);
  });

  it("reports storage in readiness", async () => {
    const ready = await fetch(`${baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { dependencies: unknown }).dependencies).toEqual([expect.objectContaining({ name: "storage", ok: true })]);
  });
});
