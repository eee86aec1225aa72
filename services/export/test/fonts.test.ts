import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createLogger, type Database } from "@transcribe/platform";
import { createTestDatabase } from "@transcribe/platform/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { downloadBaseUrl, exportConfigSchema, storageDirOf } from "../src/config.js";
import type { ExportDatabase } from "../src/db/schema.js";
import {
  FontConfigError,
  isRightToLeftParagraph,
  loadFontSet,
  scriptRuns,
  visualOrder,
} from "../src/domain/index.js";
import { buildExportService } from "../src/service.js";
import { inCi, machineFonts } from "./helpers.js";

describe("script runs and visual order", () => {
  it("splits text by script, common characters joining the run before them", () => {
    expect(scriptRuns("Hello, 世界! Привет мир — مرحبا 2024.")).toEqual([
      { text: "Hello, ", script: "latin" },
      { text: "世界! ", script: "cjk" },
      { text: "Привет мир — ", script: "cyrillic" },
      { text: "مرحبا 2024.", script: "arabic" },
    ]);
    expect(scriptRuns("«42»")).toEqual([{ text: "«42»", script: "common" }]);
    expect(scriptRuns("こんにちは東京한국")).toEqual([{ text: "こんにちは東京한국", script: "cjk" }]);
  });

  it("takes a paragraph's direction from its first letter", () => {
    expect(isRightToLeftParagraph("2024: مرحبا Hello")).toBe(true);
    expect(isRightToLeftParagraph("Hello مرحبا")).toBe(false);
    expect(isRightToLeftParagraph("שלום")).toBe(true);
    expect(isRightToLeftParagraph("123")).toBe(false);
  });

  it("reverses right-to-left words, and a right-to-left line as a whole (rule L2)", () => {
    const atoms = (pattern: string) => Array.from(pattern, (c) => ({ rtl: c === "R" }));
    // Left-to-right paragraph: the Arabic words in the middle read right to left.
    expect(visualOrder(atoms("LLRRRL"), false)).toEqual([0, 1, 4, 3, 2, 5]);
    // Right-to-left paragraph: the line runs right to left; an English phrase inside keeps its order.
    expect(visualOrder(atoms("RRLLR"), true)).toEqual([4, 2, 3, 1, 0]);
    expect(visualOrder(atoms("LLL"), false)).toEqual([0, 1, 2]);
  });
});

const fonts = machineFonts();

describe.skipIf(!fonts && !inCi)("font discovery", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "export-fonts-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("finds fonts for Latin, Greek, Cyrillic, CJK, Arabic and Hebrew in Debian's font directories", () => {
    expect(fonts!.missingScripts()).toEqual([]);
    const chooser = fonts!.chooser("ja");
    const face = (text: string, script: Parameters<typeof chooser.split>[1]) => chooser.split(text, script)[0]!.face.source;
    expect(face("Grüße", "latin")).toMatch(/NotoSans-Regular\.ttf$/);
    expect(face("Привет", "cyrillic")).toMatch(/NotoSans-Regular\.ttf$/);
    expect(face("مرحبا", "arabic")).toMatch(/NotoSansArabic-Regular\.ttf$/);
    expect(face("שלום", "hebrew")).toMatch(/NotoSansHebrew-Regular\.ttf$/);
    // The transcript's language picks the CJK face: Japanese glyph forms for "ja".
    expect(face("東京", "cjk")).toMatch(/NotoSansCJK-Regular\.ttc#NotoSansCJKjp-Regular$/);
    expect(fonts!.chooser("zh").split("东京", "cjk")[0]!.face.source).toMatch(/#NotoSansCJKsc-Regular$/);
    expect(fonts!.chooser("zh-TW").split("東京", "cjk")[0]!.face.source).toMatch(/#NotoSansCJKtc-Regular$/);
  });

  it("splits a run whose characters no single font has", () => {
    const chooser = fonts!.chooser();
    const pieces = chooser.split("abc ✓ 中", "latin");
    // Each character from the first font made for the script that has it, else from any.
    expect(pieces.map((p) => [p.text, path.basename(p.face.source)])).toEqual([
      ["abc ", "NotoSans-Regular.ttf"],
      ["✓ ", "DejaVuSans.ttf"],
      ["中", "NotoSansCJK-Regular.ttc#NotoSansCJKsc-Regular"],
    ]);
    // No font at all: drawn with the primary font (an empty box) and reported.
    expect(chooser.split("a\u{10FFFD}", "latin")).toEqual([{ text: "a\u{10FFFD}", face: fonts!.primary }]);
    expect([...chooser.missing]).toEqual(["\u{10FFFD}"]);
  });

  it("uses EXPORT_FONT_DIR instead of the system directories, and explicit files first", async () => {
    const latin = fonts!.faces.find((f) => /NotoSans-Regular\.ttf$/.test(f.source))!.source;
    await symlink(latin, path.join(dir, "NotoSans-Regular.ttf"));
    const onlyLatin = loadFontSet({ dir });
    expect(onlyLatin.faces.map((f) => path.basename(f.source))).toEqual(["NotoSans-Regular.ttf"]);
    expect(onlyLatin.missingScripts()).toEqual(["cjk", "arabic", "hebrew"]);

    const cjk = fonts!.faces.find((f) => f.source.includes("#NotoSansCJKkr-Regular"))!.source;
    const explicit = loadFontSet({ dir, files: [cjk] });
    expect(explicit.faces[0]!.source).toBe(cjk);
    // Explicit files come first for every script they cover.
    expect(explicit.chooser().split("Hello", "latin")[0]!.face.source).toBe(cjk);
  });

  it("fails with a clear message when no font is usable", async () => {
    const empty = await mkdtemp(path.join(dir, "empty-"));
    expect(() => loadFontSet({ dir: empty })).toThrow(FontConfigError);
    expect(() => loadFontSet({ dir: empty })).toThrow(/no usable font for PDF exports: no font files found .*apt-get install fonts-noto-core fonts-noto-cjk.*EXPORT_FONT_DIR/s);
    expect(() => loadFontSet({ dir: path.join(dir, "missing") })).toThrow(/EXPORT_FONT_DIR: .* is not a directory/);
    expect(() => loadFontSet({ files: ["/nonexistent/font.ttf"] })).toThrow(/EXPORT_FONT_FILES: \/nonexistent\/font\.ttf: cannot be read \(ENOENT\)/);
    expect(() => loadFontSet({ files: [`${fonts!.faces[0]!.source}#NoSuchFace`] })).toThrow(/has no face named NoSuchFace/);
  });
});

describe("start-up configuration", () => {
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let eventsDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let emptyFontDir: string;
  beforeAll(async () => {
    testDb = await createTestDatabase("export_start");
    eventsDb = await createTestDatabase("export_start_events");
    emptyFontDir = await mkdtemp(path.join(tmpdir(), "export-no-fonts-"));
  });
  afterAll(async () => {
    await testDb.drop();
    await eventsDb.drop();
    await rm(emptyFontDir, { recursive: true, force: true });
  });

  it("checks its variables, and without STORAGE_SIGNING_SECRET keeps one under DATA_DIR", async () => {
    expect(exportConfigSchema.safeParse({ STORAGE_SIGNING_SECRET: "short" }).error?.issues[0]?.message).toBe("must be at least 32 bytes");
    expect(exportConfigSchema.safeParse({ EXPORT_URL_TTL_SECONDS: "0" }).success).toBe(false);
    expect(exportConfigSchema.safeParse({ EXPORT_URL_TTL_SECONDS: String(8 * 24 * 3600) }).success).toBe(false);
    expect(exportConfigSchema.safeParse({ PUBLIC_BASE_URL: "ftp://x" }).success).toBe(false);
    const defaults = exportConfigSchema.parse({ EXPORT_FONT_FILES: " /a.ttf, /b.ttc#Face ," });
    expect(defaults).toMatchObject({
      EXPORT_URL_TTL_SECONDS: 900,
      PUBLIC_BASE_URL: "http://localhost:8080",
      TRANSCRIPTION_URL: "http://127.0.0.1:7003",
      DATA_DIR: ".data",
      EXPORT_FONT_FILES: ["/a.ttf", "/b.ttc#Face"],
    });
    expect(storageDirOf(defaults)).toBe(path.resolve(".data/exports"));
    expect(downloadBaseUrl({ PUBLIC_BASE_URL: "https://transcribe.example/" })).toBe("https://transcribe.example/api/v1/storage/exports");

    if (!fonts) return;
    const config = exportConfigSchema.parse({ DATA_DIR: emptyFontDir });
    const build = () => buildExportService({ config, logger: createLogger("t", "silent"), database: {} as Database<ExportDatabase>, fonts });
    const first = await (await build()).storage.presignGet("a/b.txt", { expiresInSeconds: 60 });
    const keyFile = path.join(emptyFontDir, "secrets", "storage-signing.key");
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    // A restarted service signs with the same key: its URLs still verify.
    const second = await build();
    const url = new URL(first.url);
    expect(second.storage.verifySignedRequest({ method: "GET", key: "a/b.txt", query: url.searchParams }).ok).toBe(true);
    expect((await readFile(keyFile, "utf8")).trim().length).toBeGreaterThanOrEqual(32);
  });

  it("the service process exits 1 naming the problem when it finds no usable font", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "../src/main.ts")], {
      env: {
        ...process.env,
        PORT: "0",
        LOG_LEVEL: "silent",
        DATABASE_URL: testDb.url,
        EVENT_BUS_DATABASE_URL: eventsDb.url,
        EXPORT_FONT_DIR: emptyFontDir,
        DATA_DIR: emptyFontDir,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(stderr).toMatch(/^export: Invalid configuration:\n {2}- no usable font for PDF exports/m);
    expect(code).toBe(1);
  }, 60_000);
});
