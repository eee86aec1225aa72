/**
 * Records the OpenAPI document of this version as the released one (docs/openapi/released.json),
 * the base the contract test's breaking-change check compares against. Run it when releasing:
 *   npm run openapi:release
 * It uses the default configuration, as the check does, so only the API's own changes differ.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { servedDocument } from "../src/openapi-document.js";

const target = path.resolve(import.meta.dirname, "../../../docs/openapi/released.json");
const { document } = await servedDocument();
await writeFile(target, `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${target}: ${Object.keys(document.paths).length} paths`);
