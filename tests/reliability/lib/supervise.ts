/**
 * The launcher's process supervision (deploy/embedded/src/supervisor.ts) without the
 * rest of the launcher: the fault test brings its own PostgreSQL (which it restarts)
 * and event bus. Runs the processes in SUPERVISE_SPEC (JSON), brings back any that
 * exits, writes their pids to <pidDir>/<name>.pid, and stops them all on SIGTERM.
 * Started as a child process so the services' logs go to the test's log file.
 */
import { Supervisor, type SupervisedProcess } from "@transcribe/embedded/supervisor";
import { repoRoot } from "@transcribe/embedded/config";

interface Spec {
  pidDir: string;
  restartDelayMs: number;
  processes: SupervisedProcess[];
}

const spec = JSON.parse(process.env.SUPERVISE_SPEC ?? "{}") as Spec;
const supervisor = new Supervisor({
  cwd: repoRoot,
  pidDir: spec.pidDir,
  restartDelayMs: spec.restartDelayMs,
  prettyLogs: false,
  log: (message) => process.stdout.write(`[supervisor] ${new Date().toISOString().slice(11, 23)} ${message}\n`),
});
await supervisor.start(spec.processes);
let stopping = false;
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void supervisor.stop().then(() => process.exit(0));
  });
}
