/**
 * The SPA's API types and zod validators, generated from the OpenAPI document the BFF
 * serves (decision 0035) into web/src/lib/api/generated, which is checked in:
 *
 *   npm run api:generate   writes them
 *   npm run api:check      regenerates into a temporary folder and fails, naming the files,
 *                          when the checked-in ones differ (part of `npm test`)
 *
 * The app reads the API in camelCase (its client converts every key, web/src/lib/api/case.ts),
 * so the document's property names are converted by that same rule before generation: the
 * generated schemas validate what the client hands the app, not the wire.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient } from "@hey-api/openapi-ts";
import { servedDocument } from "@transcribe/bff/openapi-document";
import { snakeToCamel } from "@transcribe/web/api/case";

const repoRoot = path.resolve(import.meta.dirname, "..");
const generatedDir = path.join(repoRoot, "web/src/lib/api/generated");

/** A copy of the document with every schema's property names (and `required` lists) in camelCase. */
export function camelCaseProperties(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(camelCaseProperties);
  if (typeof node !== "object" || node === null) return node;
  const result: Record<string, unknown> = {};
  const isSchemaWithProperties = isRecord((node as Record<string, unknown>).properties);
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" && isRecord(value)) {
      result[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [snakeToCamel(name), camelCaseProperties(schema)]));
    } else if (key === "required" && isSchemaWithProperties && Array.isArray(value)) {
      result[key] = value.map((name) => (typeof name === "string" ? snakeToCamel(name) : name));
    } else {
      result[key] = camelCaseProperties(value);
    }
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function generate(outputDir: string): Promise<void> {
  const { document } = await servedDocument();
  await createClient({
    input: { path: camelCaseProperties(document) as Record<string, unknown> },
    output: { path: outputDir, clean: true },
    logs: { file: false, level: "warn" },
    // Only schemas and the types inferred from them: requests go through the app's own
    // client (web/src/lib/api/client.ts: errors, timeouts, case conversion).
    plugins: [
      {
        name: "zod",
        // A schema per component (`zTranscriptionDetail`) with its type (`TranscriptionDetail`), and
        // one per operation's success response (`zGetSessionResponse`): some responses have no component.
        definitions: { types: { infer: { enabled: true, name: "{{name}}" } } },
        responses: { types: { infer: false } },
        requests: false,
      },
    ],
  });
}

/** Relative paths of every file under dir; empty when it is missing. */
function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/"))
    .sort();
}

function differences(fresh: string, committed: string): string[] {
  const freshFiles = new Set(listFiles(fresh));
  const committedFiles = new Set(listFiles(committed));
  const shown = path.relative(repoRoot, committed);
  const found: string[] = [];
  for (const file of [...new Set([...freshFiles, ...committedFiles])].sort()) {
    if (!committedFiles.has(file)) found.push(`added (generated, missing from ${shown}): ${file}`);
    else if (!freshFiles.has(file)) found.push(`removed (in ${shown}, no longer generated): ${file}`);
    else if (!readFileSync(path.join(fresh, file)).equals(readFileSync(path.join(committed, file)))) found.push(`changed: ${file}`);
  }
  return found;
}

const mode = process.argv[2];
if (mode === "generate") {
  await generate(generatedDir);
  console.log(`wrote ${path.relative(repoRoot, generatedDir)}: ${listFiles(generatedDir).join(", ")}`);
} else if (mode === "check") {
  const tmp = mkdtempSync(path.join(tmpdir(), "api-client-check-"));
  try {
    await generate(tmp);
    const found = differences(tmp, generatedDir);
    if (found.length > 0) {
      console.error("the SPA's generated API client is out of date with the BFF's OpenAPI document:");
      for (const line of found) console.error(`  ${line}`);
      console.error("run `npm run api:generate` and commit web/src/lib/api/generated");
      process.exitCode = 1;
    } else {
      console.log("generated API client is up to date");
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
} else {
  console.error("usage: tsx scripts/api-client.ts generate|check");
  process.exitCode = 2;
}
