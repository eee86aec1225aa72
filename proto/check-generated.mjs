#!/usr/bin/env node
// Checks that the committed generated code in proto/gen matches the .proto sources.
//
//   1. `buf lint` must pass.
//   2. `buf generate --output <tmp>` regenerates into a temporary directory (the
//      template's out path, proto/gen, is then relative to <tmp>).
//   3. Every file of <tmp>/proto/gen is compared byte for byte with proto/gen: files
//      added, removed or changed are printed and the script exits 1.
//
// Exit 0 with "generated code is up to date" when everything matches.
// Run from anywhere: the repo root is found from this file's location.
// Usage: npm run check -w proto   (or: node proto/check-generated.mjs)

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const binDir = join(root, "node_modules", ".bin");
const buf = join(binDir, process.platform === "win32" ? "buf.cmd" : "buf");
const genDir = join("proto", "gen");

function fail(message) {
  console.error(message);
  process.exit(1);
}

/** Runs buf in the repo root with node_modules/.bin first on PATH (for protoc-gen-es). */
function runBuf(args) {
  const result = spawnSync(buf, args, {
    cwd: root,
    stdio: "inherit",
    shell: process.platform === "win32",
    env: { ...process.env, PATH: `${binDir}${delimiter}${process.env.PATH ?? ""}` },
  });
  if (result.error) console.error(`could not run ${buf}: ${result.error.message}`);
  return result.status ?? 1;
}

/** Relative paths (with "/" separators) of every file under dir; empty when dir is missing. */
function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)).split(sep).join("/"))
    .sort();
}

if (!existsSync(buf)) fail(`buf not found at ${buf}; run npm install in the repo root first`);

if (runBuf(["lint"]) !== 0) fail("buf lint failed");

const tmp = mkdtempSync(join(tmpdir(), "proto-gen-check-"));
const differences = [];
let generateStatus;
try {
  generateStatus = runBuf(["generate", "--output", tmp]);
  if (generateStatus === 0) {
    const fresh = join(tmp, genDir);
    const committed = join(root, genDir);
    const freshFiles = new Set(listFiles(fresh));
    const committedFiles = new Set(listFiles(committed));
    for (const file of [...new Set([...freshFiles, ...committedFiles])].sort()) {
      const path = `proto/gen/${file}`;
      if (!committedFiles.has(file)) differences.push(`added (generated, missing from proto/gen): ${path}`);
      else if (!freshFiles.has(file)) differences.push(`removed (in proto/gen, no longer generated): ${path}`);
      else if (!readFileSync(join(fresh, file)).equals(readFileSync(join(committed, file)))) {
        differences.push(`changed: ${path}`);
      }
    }
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
if (generateStatus !== 0) fail("buf generate failed");

if (differences.length > 0) {
  console.error("generated code is out of date:");
  for (const line of differences) console.error(`  ${line}`);
  console.error("run `npm run proto:generate` from the repo root and commit proto/gen");
  process.exit(1);
}
console.log("generated code is up to date");
