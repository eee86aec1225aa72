/**
 * Part of `npm run lint`: code and docs cite only what is in the repository. A comment (or any
 * line of code, test names included, or of a Markdown document: README.md, docs/) that cites
 * an issue number or a section of a document outside the repository fails the lint; say the reason itself, or cite a `docs/...` file
 * (the product's texts and limits are in docs/requirements.md, choices in docs/decisions/).
 * A section of a repository document (`docs/benchmarks.md §4`, `` `docs/benchmarks.md` §4 ``) is allowed.
 *
 *   npx tsx scripts/check-citations.ts            the tracked files
 *   npx tsx scripts/check-citations.ts FILE...    these files only
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

const CHECKED = /\.(ts|tsx|mts|cts|js|mjs|cjs|py|sh|yaml|yml|proto|md)$/;
const GENERATED = [/(^|\/)node_modules\//, /(^|\/)gen\//, /routeTree\.gen\.ts$/];
const SECTION = "\u00a7";

/** What a line must not cite, with the reason shown. */
const RULES: Array<{ pattern: RegExp; reason: string }> = [
  { pattern: /\bissues?\s+#?\d+/i, reason: "cites an issue number" },
  { pattern: new RegExp(`\\bspec(?:'s)?\\s*(?:\\(\\s*)?${SECTION}`, "i"), reason: "cites a section of the spec" },
  // A bare section sign with a number, unless it follows a repository document's name.
  { pattern: new RegExp(`(?<!\\.md\`?\\s?)${SECTION}\\s?\\d`), reason: "cites a section of a document outside the repository" },
];

export function citationProblems(text: string): Array<{ line: number; reason: string; text: string }> {
  const problems: Array<{ line: number; reason: string; text: string }> = [];
  text.split("\n").forEach((line, index) => {
    for (const rule of RULES) if (rule.pattern.test(line)) problems.push({ line: index + 1, reason: rule.reason, text: line.trim() });
  });
  return problems;
}

const root = path.resolve(import.meta.dirname, "..");
const self = path.relative(root, import.meta.filename);
const given = process.argv.slice(2);
const files = (given.length > 0 ? given : execFileSync("git", ["ls-files"], { cwd: root, encoding: "utf8" }).split("\n"))
  .filter((file) => CHECKED.test(file) && !GENERATED.some((pattern) => pattern.test(file)) && file !== self);

let count = 0;
for (const file of files) {
  let text: string;
  try {
    text = readFileSync(path.resolve(root, file), "utf8");
  } catch {
    continue; // deleted in the working tree
  }
  for (const problem of citationProblems(text)) {
    count += 1;
    console.error(`${file}:${problem.line}: ${problem.reason}: ${problem.text.slice(0, 160)}`);
  }
}
if (count > 0) {
  console.error(`\n${count} line(s) cite what is not in the repository: give the reason itself, or cite docs/... (docs/requirements.md, docs/decisions/).`);
  process.exit(1);
}
console.log(`citations: ${files.length} files, none cites an issue or an outside document`);
