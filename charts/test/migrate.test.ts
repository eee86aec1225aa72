import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createTestDatabase } from "@transcribe/platform/testing";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import path from "node:path";
import { type Manifest, render, repoRoot, toolsMissing } from "./tools.js";

/** deploy/migrate.ts as the migrations Job runs it: node --import tsx, env only. */
function migrate(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "deploy/migrate.ts"], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

async function query<T extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe("the migrations Job's command (deploy/migrate.ts)", () => {
  const drops: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const drop of drops) await drop().catch(() => {});
  });

  it("applies a service's migrations and the outbox's, then finds nothing left to do", { timeout: 120_000 }, async () => {
    const database = await createTestDatabase("migrate_blog");
    drops.push(() => database.drop());
    const first = await migrate({ SERVICE: "blog", DATABASE_URL: database.url });
    expect(first.code, first.output).toBe(0);
    const applied = JSON.parse(first.output.trim().split("\n").pop()!) as { service: string; applied: string[] };
    expect(applied.service).toBe("blog");
    expect(applied.applied.length).toBeGreaterThan(1);
    const tables = await query<{ table_name: string }>(database.url, "select table_name from information_schema.tables where table_schema = 'public'");
    expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(["platform_outbox", "posts"]));

    const second = await migrate({ SERVICE: "blog", DATABASE_URL: database.url });
    expect(second.code, second.output).toBe(0);
    expect(JSON.parse(second.output.trim().split("\n").pop()!).applied).toEqual([]);
  });

  it("exits 1 with a readable message for a bad URL, an unknown service or an unreachable database", { timeout: 120_000 }, async () => {
    const badUrl = await migrate({ SERVICE: "blog", DATABASE_URL: "mysql://x/y" });
    expect(badUrl.code).toBe(1);
    expect(badUrl.output).toContain("migrate: DATABASE_URL: must be a postgres:// or postgresql:// URL with a host and a database name");
    const unknown = await migrate({ SERVICE: "nosuch", DATABASE_URL: "postgres://u@127.0.0.1:1/db" });
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain("migrate: nosuch has no migrations at");
    const down = await migrate({ SERVICE: "blog", DATABASE_URL: "postgres://u@127.0.0.1:1/db" });
    expect(down.code).toBe(1);
    expect(down.output).toMatch(/^migrate: blog: .*ECONNREFUSED/m);
  });

  it.skipIf(toolsMissing)("gives KEDA a queue depth that counts runnable and held jobs only, per worker pool", { timeout: 120_000 }, async () => {
    const database = await createTestDatabase("migrate_transcription");
    drops.push(() => database.drop());
    const result = await migrate({ SERVICE: "transcription", DATABASE_URL: database.url });
    expect(result.code, result.output).toBe(0);

    const jobs: Array<{ status: string; runAfter: string; owner: string | null; counted: boolean; pool: "cpu" | "gpu" }> = [
      { status: "pending", runAfter: "now() - interval '1 second'", owner: null, counted: true, pool: "cpu" },
      { status: "processing", runAfter: "now()", owner: null, counted: true, pool: "cpu" },
      { status: "transcribing", runAfter: "now() - interval '1 minute'", owner: "worker-a", counted: true, pool: "cpu" },
      // Held by a worker even though its retry time lies ahead (it was leased before).
      { status: "transcribing", runAfter: "now() + interval '1 hour'", owner: "worker-b", counted: true, pool: "gpu" },
      { status: "pending", runAfter: "now()", owner: null, counted: true, pool: "gpu" },
      // Waiting out a retry's backoff: counted again once the delay ends.
      { status: "pending", runAfter: "now() + interval '5 minutes'", owner: null, counted: false, pool: "cpu" },
      { status: "pending", runAfter: "now() + interval '5 minutes'", owner: null, counted: false, pool: "gpu" },
      { status: "completed", runAfter: "now()", owner: null, counted: false, pool: "cpu" },
      { status: "failed", runAfter: "now()", owner: null, counted: false, pool: "gpu" },
      { status: "cancelled", runAfter: "now()", owner: null, counted: false, pool: "cpu" },
    ];
    for (const job of jobs) {
      const transcription = randomUUID();
      await query(
        database.url,
        `insert into transcriptions (id, user_id, file_id, display_name, file_name, uploaded_at, status, settings)
         values ($1, 'u', $2, 'a.wav', 'a.wav', now(), 'pending', '{}')`,
        [transcription, randomUUID()],
      );
      await query(
        database.url,
        `insert into transcription_jobs (id, transcription_id, user_id, settings, engine_model, status, max_attempts, run_after, lease_owner, lease_expires_at, pool)
         values ($1, $2, 'u', '{}', $5, $3, 4, ${job.runAfter}, $4::text, case when $4::text is null then null else now() + interval '30 seconds' end, $6)`,
        [randomUUID(), transcription, job.status, job.owner, job.pool === "gpu" ? "large-v3" : "tiny.en", job.pool],
      );
    }
    const count = async (scaled: Manifest) => {
      const [row] = await query<{ count: string }>(database.url, (scaled.spec.triggers[0].metadata as { query: string }).query);
      return Number(row!.count);
    };
    const counted = (pool?: "cpu" | "gpu") => jobs.filter((j) => j.counted && (!pool || j.pool === pool)).length;
    // One pool (the default): the CPU workers take every job, so they scale on all of them.
    const single = render().manifests.filter((m) => m.kind === "ScaledObject");
    expect(single).toHaveLength(1);
    expect(await count(single[0]!)).toBe(counted());
    // With the GPU pool, each pool's trigger counts the jobs its workers lease.
    const pools = render({ values: [path.join(import.meta.dirname, "values-gpu-pool.yaml")] }).manifests.filter((m) => m.kind === "ScaledObject");
    const of = (suffix: string) => pools.find((s) => s.spec.scaleTargetRef.name.endsWith(suffix))!;
    expect(await count(of("-transcription-worker"))).toBe(counted("cpu"));
    expect(await count(of("-transcription-gpu-worker"))).toBe(counted("gpu"));
    expect(counted("gpu")).toBe(2);
  });
});
