import { spawn } from "node:child_process";
import { startRestartablePostgres } from "./lib/postgres.ts";
const pg = await startRestartablePostgres();
console.log("pg up");
for (const guard of ["0", "1"]) {
  let crashes = 0;
  for (let round = 0; round < 3; round++) {
    const child = spawn(process.execPath, ["--import", "tsx", "tests/reliability/zz-load.mts"], { cwd: "/work/main", env: { ...process.env, URL: pg.urlFor("postgres"), GUARD: guard }, stdio: ["ignore", "ignore", "pipe"] });
    let err = ""; child.stderr!.on("data", (d) => (err += d));
    const exited = new Promise((r) => child.once("exit", (code) => r(code)));
    await new Promise((r) => setTimeout(r, 3000));
    await pg.restart(1000);
    const code = await exited;
    if (code !== 0) { crashes++; console.log(`guard=${guard} crash: ${err.split("\n").filter((l) => /Error|terminat/.test(l)).slice(0,2).join(" | ")}`); }
  }
  console.log(`guard=${guard}: ${crashes}/3 crashed`);
}
await pg.stop();
process.exit(0);
