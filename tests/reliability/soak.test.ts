import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SoakResult } from "../../bench/soak/report.js";
import { engineUnavailable } from "./lib/engine.js";
import { repoRoot } from "@transcribe/embedded/config";

/**
 * The load soak (bench/soak/soak.ts, `npm run soak`) in its CI form: the whole product
 * under 10 people for 45 s instead of 50 for 5 minutes. The memory limit is wider than the
 * full run's 64 MB: 34 s after warm-up, one garbage collection moves a heap that much.
 */
const USERS = Number(process.env.SOAK_USERS ?? 10);
const DURATION = Number(process.env.SOAK_DURATION ?? 45);

describe.skipIf(engineUnavailable)(`load soak, shortened: ${USERS} people for ${DURATION} s`, () => {
  it("answers no 5xx, loses and duplicates no job, and keeps every process's memory flat", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "soak-test-"));
    const resultFile = path.join(dir, "soak.json");
    try {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "bench/soak/soak.ts", "--users", String(USERS), "--duration", String(DURATION), "--max-growth-mb", "96", "--json", resultFile],
        { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
      );
      let output = "";
      child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      console.log(output);
      const result = JSON.parse(await readFile(resultFile, "utf8").catch(() => "null")) as SoakResult | null;
      expect(result, output.slice(-4000)).not.toBeNull();
      const { jobs, requests, memory } = result!;
      expect(jobs.submitted).toBeGreaterThan(0);
      expect(jobs.lost, output.slice(-4000)).toBe(0);
      expect(jobs.duplicated, output.slice(-4000)).toBe(0);
      expect(jobs.completed + jobs.failedWithReason).toBe(jobs.submitted);
      expect(requests.byClass["5xx"] ?? 0).toBe(0);
      expect(requests.networkErrors).toEqual({});
      expect(result!.flowErrors.first).toEqual([]);
      expect(memory.processes.filter((p) => !p.flat).map((p) => `${p.name} +${p.growthMb} MB, restarts ${p.restarts}`)).toEqual([]);
      // Every process of the product was sampled, the engine included.
      expect(memory.processes.map((p) => p.name)).toEqual(
        expect.arrayContaining(["bff", "auth", "media", "transcription", "transcription-worker", "billing", "export", "postgres (all processes, PSS)"]),
      );
      expect(code, output.slice(-4000)).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
