import { randomUUID } from "node:crypto";
import { copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { createServiceClient } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { FileStatus, MediaService } from "@transcribe/proto/media/v1/media";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { afterAll, describe, expect, it } from "vitest";
import { readDb, type ReadDb } from "./lib/db.js";
import { engineUnavailable, whisperModelsDir, whisperPython } from "./lib/engine.js";
import { kafkaWanted, startOwnBroker } from "./lib/kafka.js";
import { repoRoot } from "@transcribe/embedded/config";
import { startRestartablePostgres } from "./lib/postgres.js";
import { formatCounts } from "./lib/report.js";
import { retrying, startSupervised, waitReady, type SupervisedGroup } from "./lib/services.js";
import { makeClips, type Clip } from "./lib/speech.js";

/**
 * Faults during real work. The media, transcription, billing and two transcription
 * worker processes run under the launcher's supervisor on a PostgreSQL and (with Kafka)
 * a broker of the test's own. 30 short jobs go in through media and the transcription
 * API while the test SIGKILLs workers at random moments (the supervisor starts them
 * again), restarts PostgreSQL once and, with Kafka, the broker once. Then: every job is
 * completed or failed with a reason, none twice, none lost; every terminal event reached
 * billing exactly once (its usage ledger agrees with the jobs); the services that were
 * not killed are the same processes and answer again.
 */

const JOBS = Number(process.env.FAULT_JOBS ?? 30);
const MAX_KILLS = Number(process.env.FAULT_KILLS ?? 8);
const SEED = Number(process.env.FAULT_SEED ?? Math.floor(Math.random() * 1_000_000));
const USERS = 5;
const DOWN_MS = 3_000;
/** Submissions spread over about 45 s, so faults land while jobs arrive, wait and run. */
const SUBMIT_EVERY_MS = 1_500;
const SERVICES = ["media", "billing", "transcription"] as const;
const WORKERS = ["transcription-worker-1", "transcription-worker-2"] as const;

/** mulberry32: the kill schedule is reproducible from the printed seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Submission {
  index: number;
  userId: string;
  fileName: string;
  clip: Clip;
  fileId?: string;
  transcriptionId?: string;
  /** Calls that failed and were made again (the client riding out an outage). */
  retries: number;
  /** The answer to CreateTranscription was lost but the transcription existed: found by name, not created twice. */
  adopted: boolean;
}

describe.skipIf(engineUnavailable)("faults: workers SIGKILLed, PostgreSQL and the broker restarted during 30 jobs", () => {
  const cleanup: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch((error: unknown) => console.error(error));
  });

  it("ends every job completed or failed with a reason, none twice, none lost, no event lost", async () => {
    const started = Date.now();
    const elapsed = () => `+${((Date.now() - started) / 1000).toFixed(1)}s`;
    const timeline: string[] = [];
    const note = (message: string) => {
      timeline.push(`${elapsed()} ${message}`);
      process.stdout.write(`[faults ${elapsed()}] ${message}\n`);
    };
    const rng = random(SEED);
    note(`seed ${SEED} (FAULT_SEED=${SEED} repeats this kill schedule)`);

    await mkdir(path.join(repoRoot, ".data"), { recursive: true });
    const dir = await mkdtemp(path.join(repoRoot, ".data", "reliability-faults-"));
    cleanup.push(() => rm(dir, { recursive: true, force: true }));
    // Each server is handed to the clean-up as soon as it runs, even if another fails to start.
    const [pg, broker, clips] = await Promise.all([
      startRestartablePostgres().then((server) => {
        cleanup.push(() => server.stop());
        return server;
      }),
      kafkaWanted()
        ? startOwnBroker().then((server) => {
            cleanup.push(() => server.stop());
            return server;
          })
        : Promise.resolve(undefined),
      makeClips(dir),
    ]);
    for (const database of ["media", "transcription", "billing", "events"]) await pg.ensureDatabase(database);
    note(broker ? `event bus: Kafka (own broker ${broker.brokers})` : "event bus: embedded (pg-boss); no KAFKA_BROKERS, so no broker restart");

    const ports = Object.fromEntries(await Promise.all([...SERVICES, ...WORKERS].map(async (name) => [name, await freePort()] as const)));
    const url = (name: string) => `http://127.0.0.1:${ports[name]}`;
    const busEnv: Record<string, string> = broker
      ? { EVENT_BUS: "kafka", KAFKA_BROKERS: broker.brokers, KAFKA_TOPIC_PREFIX: `faults-${randomUUID().slice(0, 8)}.` }
      : { EVENT_BUS: "embedded", EVENT_BUS_DATABASE_URL: pg.urlFor("events") };
    const common = { ...busEnv, HOST: "127.0.0.1", LOG_LEVEL: "info", DATA_DIR: dir };
    const engine = {
      WHISPER_PYTHON: whisperPython,
      WHISPER_MODELS_DIR: whisperModelsDir,
      WHISPER_DOWNLOAD: "false",
    };
    const workerEnv = (name: string) => ({
      ...common,
      ...engine,
      PORT: String(ports[name]),
      DATABASE_URL: pg.urlFor("transcription"),
      MEDIA_URL: url("media"),
      // One core each on a two-core machine; greedy decoding is enough for tiny.en.
      WHISPER_THREADS: "1",
      WHISPER_BEAM_SIZE: "1",
      // A killed worker's job is taken over once its lease expires.
      JOB_LEASE_SECONDS: "6",
      JOB_POLL_MS: "300",
      JOB_RETRY_BASE_MS: "1000",
    });
    const entry = (file: string) => path.join(repoRoot, file);
    const group: SupervisedGroup = startSupervised({
      pidDir: path.join(dir, "run"),
      logFile: path.join(dir, "services.log"),
      restartDelayMs: 1_000,
      processes: [
        {
          name: "media",
          entry: entry("services/media/src/main.ts"),
          env: {
            ...common,
            PORT: String(ports.media),
            DATABASE_URL: pg.urlFor("media"),
            STORAGE_PUBLIC_URL: `${url("media")}/api/v1/storage`,
            MEDIA_WORK_DIR: path.join(dir, "media-work"),
          },
        },
        {
          name: "billing",
          entry: entry("services/billing/src/main.ts"),
          env: { ...common, PORT: String(ports.billing), DATABASE_URL: pg.urlFor("billing"), FREE_TRIAL_MINUTES: "1000000" },
        },
        {
          name: "transcription",
          entry: entry("services/transcription/src/main.ts"),
          env: {
            ...common,
            ...engine,
            PORT: String(ports.transcription),
            DATABASE_URL: pg.urlFor("transcription"),
            MEDIA_URL: url("media"),
            BILLING_URL: url("billing"),
          },
        },
        ...WORKERS.map((name) => ({ name, entry: entry("services/transcription/src/worker.ts"), env: workerEnv(name) })),
      ],
    });
    cleanup.push(async () => {
      await group.stop();
      // Kept after the run (the run directory is removed): what each service logged.
      await copyFile(path.join(dir, "services.log"), path.join(repoRoot, ".data", "reliability-faults-services.log"));
      console.log("[faults] service logs: .data/reliability-faults-services.log");
    });
    const failWith = async (message: string) => new Error(`${message}\n--- services (tail) ---\n${await group.logTail()}`);

    try {
      await Promise.all([...SERVICES, ...WORKERS].map((name) => waitReady(`${url(name)}/readyz`, 180_000)));
    } catch (error) {
      throw await failWith((error as Error).message);
    }
    const firstPids = Object.fromEntries(await Promise.all(SERVICES.map(async (name) => [name, await group.pidOf(name)] as const)));
    note(`all ready: ${JSON.stringify(firstPids)}`);

    const dbs: Record<"media" | "transcription" | "billing", ReadDb> = {
      media: readDb(pg.urlFor("media")),
      transcription: readDb(pg.urlFor("transcription")),
      billing: readDb(pg.urlFor("billing")),
    };
    cleanup.push(() => Promise.all(Object.values(dbs).map((db) => db.close())));
    const media = createServiceClient(MediaService, url("media"), { timeoutMs: 15_000 });
    const transcription = createServiceClient(TranscriptionService, url("transcription"), { timeoutMs: 15_000 });

    const runId = randomUUID().slice(0, 8);
    const users = Array.from({ length: USERS }, (_, i) => `faults-${runId}-user-${i + 1}`);
    const submissions: Submission[] = Array.from({ length: JOBS }, (_, index) => ({
      index,
      userId: users[index % USERS]!,
      fileName: `faults-${runId}-${String(index).padStart(2, "0")}.mp3`,
      clip: clips[index % clips.length]!,
      retries: 0,
      adopted: false,
    }));

    // ---- the client: uploads and starts a job every 1.5 s, riding out outages --------------
    const submit = async (s: Submission) => {
      const retried = () => s.retries++;
      const upload = await retrying(
        `CreateUpload ${s.fileName}`,
        () => media.createUpload({ userId: s.userId, fileName: s.fileName, fileSize: BigInt(s.clip.bytes.length), contentType: s.clip.contentType, duration: 3 }),
        180_000,
        retried,
      );
      s.fileId = upload.fileId;
      await retrying(
        `PUT ${s.fileName}`,
        async () => {
          const response = await fetch(upload.uploadUrl, { method: "PUT", body: s.clip.bytes, headers: { "content-type": s.clip.contentType } });
          if (response.ok) return;
          // A PUT whose answer was lost may have been recorded: then the file is past UPLOADING.
          const { file } = await media.getFile({ userId: s.userId, fileId: upload.fileId });
          if (file && file.status !== FileStatus.UPLOADING) return;
          throw new Error(`PUT answered ${response.status}: ${await response.text()}`);
        },
        180_000,
        retried,
      );
      const created = await retrying(
        `CreateTranscription ${s.fileName}`,
        async () => {
          try {
            return await transcription.createTranscription({ userId: s.userId, fileId: upload.fileId, settings: { model: "whisper-tiny.en", language: "en" } });
          } catch (error) {
            // The answer may be lost after the commit: look before asking again, as a
            // careful client does, so a retry never makes a second transcription.
            const { transcriptions } = await transcription.listTranscriptions({ userId: s.userId, limit: 100, offset: 0, query: s.fileName });
            const found = transcriptions.find((t) => t.displayName === s.fileName);
            if (found) {
              s.adopted = true;
              return { transcriptionId: found.id };
            }
            throw error;
          }
        },
        180_000,
        retried,
      );
      s.transcriptionId = created.transcriptionId;
    };
    const submitting = Promise.all(
      submissions.map(async (s) => {
        await new Promise((r) => setTimeout(r, s.index * SUBMIT_EVERY_MS));
        await submit(s);
      }),
    );
    let submitError: unknown;
    submitting.catch((error: unknown) => (submitError = error));

    const statuses = async () =>
      dbs.transcription.rows<{ id: string; status: string; error: string | null }>(
        "select id, status, error from transcriptions where user_id = any($1)",
        [users],
      );
    const terminalCount = async () => (await statuses()).filter((t) => t.status === "completed" || t.status === "failed").length;

    // ---- the faults: kills at random moments, and one restart of each server ---------------
    let finished = false;
    const kills: Array<{ worker: string; pid: number; midJob: boolean }> = [];
    let pgRestartedAt: number | undefined;
    let brokerRestartedAt: number | undefined;
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const killing = (async () => {
      while (!finished && kills.length < MAX_KILLS) {
        // Random moments, spread over the run; a worker needs a few seconds to come back.
        await pause(4_000 + rng() * 8_000);
        if (finished) break;
        const heldBy = async (pid: number) =>
          dbs.transcription
            .rows<{ id: string }>(
              "select id from transcription_jobs where lease_owner like $1 and status in ('processing', 'transcribing')",
              [`%:${pid}:%`],
              2_000,
            )
            .catch(() => []);
        // Every other kill waits (up to 5 s) for a worker in the middle of a job, so a short
        // job never lets every kill fall between jobs; the rest hit whatever the moment is.
        const wantMidJob = kills.length % 2 === 0;
        let worker = WORKERS[Math.floor(rng() * WORKERS.length)]!;
        let pid = await group.pidOf(worker);
        let holding = pid ? await heldBy(pid) : [];
        for (let tries = 0; wantMidJob && holding.length === 0 && tries < 50 && !finished; tries++) {
          for (const candidate of WORKERS) {
            const candidatePid = await group.pidOf(candidate);
            const held = candidatePid ? await heldBy(candidatePid) : [];
            if (held.length > 0) [worker, pid, holding] = [candidate, candidatePid, held];
            if (held.length > 0) break;
          }
          if (holding.length === 0) await pause(100);
        }
        if (finished) break;
        if (!pid) continue; // being started again by the supervisor
        await group.kill9(worker);
        kills.push({ worker, pid, midJob: holding.length > 0 });
        note(`SIGKILL ${worker} (pid ${pid})${holding.length > 0 ? ` holding job ${holding[0]!.id}` : " between jobs"} with ${await terminalCount()}/${JOBS} jobs ended`);
      }
    })();
    const restarting = (async () => {
      // PostgreSQL once about a third of the jobs have ended, the broker at two thirds:
      // both land while jobs are queued, running and completing.
      while (!finished && pgRestartedAt === undefined) {
        await pause(1_000);
        const done = await terminalCount();
        if (done >= Math.round(JOBS / 3) || Date.now() - started > 240_000) {
          note(`PostgreSQL: restarting (stop, ${DOWN_MS} ms down, start) with ${done}/${JOBS} jobs ended`);
          await pg.restart(DOWN_MS);
          pgRestartedAt = Date.now();
          note("PostgreSQL: up again");
        }
      }
      while (broker && !finished && brokerRestartedAt === undefined) {
        await pause(1_000);
        const done = await terminalCount();
        if (done >= Math.round((JOBS * 2) / 3) || Date.now() - started > 300_000) {
          note(`Kafka: restarting the broker (stop, ${DOWN_MS} ms down, start) with ${done}/${JOBS} jobs ended`);
          await broker.restart(DOWN_MS);
          brokerRestartedAt = Date.now();
          note("Kafka: up again");
        }
      }
    })();
    const faults = Promise.all([killing, restarting]);

    // ---- wait for every job to end -------------------------------------------------------------
    // Generous for 30 short jobs on a loaded machine (they take 1-2 minutes), far too short
    // for a job that waits out a long lease (media's is 10 minutes) after a fault.
    const deadline = Date.now() + 7 * 60_000;
    let lastReport = 0;
    for (;;) {
      if (submitError) throw await failWith(`a submission gave up: ${(submitError as Error).message}`);
      const rows = await statuses();
      const ended = rows.filter((t) => t.status === "completed" || t.status === "failed").length;
      const acknowledged = submissions.filter((s) => s.transcriptionId).length;
      if (acknowledged === JOBS && ended >= JOBS && pgRestartedAt && (!broker || brokerRestartedAt)) break;
      if (Date.now() - lastReport > 15_000) {
        lastReport = Date.now();
        const byStatus: Record<string, number> = {};
        for (const t of rows) byStatus[t.status] = (byStatus[t.status] ?? 0) + 1;
        note(`progress: ${acknowledged}/${JOBS} submitted, ${JSON.stringify(byStatus)}`);
      }
      if (Date.now() > deadline) {
        finished = true;
        throw await failWith(`jobs did not all end within 7 minutes: ${JSON.stringify(rows.filter((t) => t.status !== "completed" && t.status !== "failed"))}`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    finished = true;
    await faults;
    await submitting;
    note(`every job ended; ${kills.length} kills (${kills.filter((k) => k.midJob).length} mid-job)`);

    // ---- events: the outboxes drain and billing applies every terminal event -----------------
    const jobRows = await dbs.transcription.rows<{ id: string; transcription_id: string; status: string; last_error: string | null; attempts: number }>(
      "select id, transcription_id, status, last_error, attempts from transcription_jobs where user_id = any($1)",
      [users],
    );
    const jobIds = jobRows.map((j) => j.id);
    const terminalEvents = async () =>
      dbs.transcription.rows<{ id: string; key: string; published: boolean }>(
        "select id, key, published_at is not null as published from platform_outbox where type like '%.TranscriptionCompleted' and key = any($1)",
        [jobIds],
      );
    const billingApplied = async (eventIds: string[]) =>
      Number(
        (
          await dbs.billing.rows<{ n: number }>(
            "select count(*)::int as n from platform_processed_events where consumer = 'billing' and event_id = any($1::uuid[])",
            [eventIds],
          )
        )[0]!.n,
      );
    const drainDeadline = Date.now() + 120_000;
    for (;;) {
      const events = await terminalEvents();
      const unpublished = (await dbs.transcription.rows<{ n: number }>("select count(*)::int as n from platform_outbox where published_at is null"))[0]!.n
        + (await dbs.media.rows<{ n: number }>("select count(*)::int as n from platform_outbox where published_at is null"))[0]!.n;
      const applied = await billingApplied(events.map((e) => e.id));
      if (unpublished === 0 && applied >= events.length) break;
      if (Date.now() > drainDeadline) {
        throw await failWith(`events did not drain in 120 s: ${unpublished} unpublished, billing applied ${applied} of ${events.length} terminal events`);
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    // Room for a wrong second delivery to show.
    await new Promise((r) => setTimeout(r, 3_000));

    // ---- counts ----------------------------------------------------------------------------------
    const transcriptions = await statuses();
    const byId = new Map(transcriptions.map((t) => [t.id, t]));
    const results = await dbs.transcription.rows<{ transcription_id: string; n: number }>(
      "select transcription_id, count(*)::int as n from transcription_results where transcription_id = any($1) group by transcription_id",
      [transcriptions.map((t) => t.id)],
    );
    const resultsOf = new Map(results.map((r) => [r.transcription_id, r.n]));
    const events = await terminalEvents();
    const eventsPerJob = new Map<string, number>();
    for (const event of events) eventsPerJob.set(event.key, (eventsPerJob.get(event.key) ?? 0) + 1);
    const usage = await dbs.billing.rows<{ job_id: string; state: string }>("select job_id, state from billing_usage where job_id = any($1)", [jobIds]);
    const usageOf = new Map<string, string[]>();
    for (const row of usage) usageOf.set(row.job_id, [...(usageOf.get(row.job_id) ?? []), row.state]);
    const fileUploaded = await dbs.media.rows<{ id: string }>(
      "select id from platform_outbox where type like '%.FileUploaded' and key = any($1)",
      [submissions.map((s) => s.fileId).filter(Boolean)],
    );
    const fileUploadedApplied = Number(
      (
        await dbs.transcription.rows<{ n: number }>(
          "select count(*)::int as n from platform_processed_events where consumer = 'transcription' and event_id = any($1::uuid[])",
          [fileUploaded.map((e) => e.id)],
        )
      )[0]!.n,
    );

    let completed = 0;
    let failedWithReason = 0;
    let failedWithoutReason = 0;
    let lost = 0;
    let duplicated = 0;
    const problems: string[] = [];
    for (const s of submissions) {
      const row = s.transcriptionId ? byId.get(s.transcriptionId) : undefined;
      if (!row) {
        lost++;
        problems.push(`${s.fileName}: no transcription`);
        continue;
      }
      const jobs = jobRows.filter((j) => j.transcription_id === row.id);
      const terminalEventCount = jobs.reduce((n, j) => n + (eventsPerJob.get(j.id) ?? 0), 0);
      const settled = jobs.flatMap((j) => usageOf.get(j.id) ?? []).filter((state) => state === "settled").length;
      if (row.status === "completed") {
        completed++;
        if ((resultsOf.get(row.id) ?? 0) !== 1 || terminalEventCount !== 1 || settled !== 1 || jobs.length !== 1) {
          duplicated += (resultsOf.get(row.id) ?? 0) > 1 || terminalEventCount > 1 || settled > 1 || jobs.length > 1 ? 1 : 0;
          problems.push(`${s.fileName}: completed with ${resultsOf.get(row.id) ?? 0} results, ${terminalEventCount} terminal events, ${settled} settled usage rows, ${jobs.length} jobs`);
        }
      } else if (row.status === "failed") {
        if (row.error) failedWithReason++;
        else failedWithoutReason++;
        if (terminalEventCount !== 1 || settled !== 0 || jobs.length !== 1) {
          duplicated += terminalEventCount > 1 || jobs.length > 1 ? 1 : 0;
          problems.push(`${s.fileName}: failed with ${terminalEventCount} terminal events, ${settled} settled usage rows, ${jobs.length} jobs`);
        }
      } else {
        lost++;
        problems.push(`${s.fileName}: still ${row.status}`);
      }
    }
    // Every terminal event is applied by billing exactly once: its processed-events row
    // exists (the primary key forbids a second one), and the ledger agrees with the jobs.
    const eventsLost = events.length - (await billingApplied(events.map((e) => e.id))) + (fileUploaded.length - fileUploadedApplied);
    const reservedLeft = usage.filter((u) => u.state === "reserved").length;

    // ---- the services came back by themselves ----------------------------------------------
    const samePids = Object.fromEntries(await Promise.all(SERVICES.map(async (name) => [name, (await group.pidOf(name)) === firstPids[name]] as const)));
    // A worker killed last may still sit in the supervisor's restart backoff (up to 30 s): it
    // must come back, so each process gets a bounded wait to answer ready.
    const readyStatus = async (name: string) => {
      const deadline = Date.now() + 60_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline) {
        status = await fetch(`${url(name)}/readyz`).then((r) => r.status, () => 0);
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 500));
      }
      return status;
    };
    const readiness = Object.fromEntries(await Promise.all([...SERVICES, ...WORKERS].map(async (name) => [name, await readyStatus(name)] as const)));
    const failures = transcriptions.filter((t) => t.status === "failed").map((t) => t.error);
    const serviceLog = await group.logTail(Number.MAX_SAFE_INTEGER);
    // A rejection nobody handled is work dropped on the floor (a loop that died, an
    // outcome never recorded), even when the numbers above happen to add up.
    const unhandled = serviceLog.split("\n").filter((line) => line.includes('"msg":"unhandled rejection"'));
    const exits = serviceLog.split("\n").filter((line) => line.startsWith("[supervisor]") && line.includes(" exited "));
    const counts = {
      submitted: JOBS,
      completed,
      failedWithReason,
      lost,
      duplicated,
      failedWithoutReason,
      eventsLost,
      terminalEvents: events.length,
      fileUploadedEvents: fileUploaded.length,
      reservedUsageLeft: reservedLeft,
      unhandledRejections: unhandled.length,
      kills: kills.length,
      midJobKills: kills.filter((k) => k.midJob).length,
      postgresRestarted: pgRestartedAt !== undefined,
      brokerRestarted: broker ? brokerRestartedAt !== undefined : "no broker (embedded bus)",
      submissionRetries: submissions.reduce((n, s) => n + s.retries, 0),
      adoptedAfterLostAnswer: submissions.filter((s) => s.adopted).length,
      maxAttempts: Math.max(...jobRows.map((j) => j.attempts)),
      seconds: Math.round((Date.now() - started) / 1000),
      seed: SEED,
    };
    console.log(formatCounts("faults", counts));
    if (failures.length > 0) console.log(`[faults] failure reasons: ${JSON.stringify(failures)}`);
    if (problems.length > 0) console.log(`[faults] problems:\n  ${problems.join("\n  ")}`);
    console.log(`[faults] timeline:\n  ${timeline.join("\n  ")}`);
    console.log(`[faults] process exits seen by the supervisor:\n  ${exits.join("\n  ")}`);

    const context = `${formatCounts("faults", counts)}\n${problems.join("\n")}`;
    expect(lost, context).toBe(0);
    expect(duplicated, context).toBe(0);
    expect(failedWithoutReason, context).toBe(0);
    expect(completed + failedWithReason, context).toBe(JOBS);
    expect(problems, context).toEqual([]);
    expect(eventsLost, context).toBe(0);
    expect(reservedLeft, context).toBe(0);
    expect(unhandled.map((line) => line.slice(0, 600)), context).toEqual([]);
    expect(counts.postgresRestarted).toBe(true);
    if (broker) expect(brokerRestartedAt).toBeDefined();
    expect(kills.length, context).toBeGreaterThanOrEqual(3);
    expect(kills.filter((k) => k.midJob).length, context).toBeGreaterThanOrEqual(1);
    // Not restarted by hand nor by the supervisor: they reconnected on their own.
    expect(samePids, await group.logTail()).toEqual(Object.fromEntries(SERVICES.map((name) => [name, true])));
    expect(readiness).toEqual(Object.fromEntries([...SERVICES, ...WORKERS].map((name) => [name, 200])));
  });
});
