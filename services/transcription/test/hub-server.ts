import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local server speaking the Hugging Face Hub's HTTP API (model info, revision, tree,
 * resolve with HEAD/GET and Range), for the real huggingface_hub client (HF_ENDPOINT).
 */
export const DEFAULT_REPO = "Systran/faster-whisper-small";
export const COMMIT = "0123456789abcdef0123456789abcdef01234567";

export interface HubOptions {
  corrupt?: string;
  /** The repository served (default: REPO). */
  repo?: string;
  /** The first GET of this file ends after `bytes` bytes: the connection is dropped mid-body. */
  dropAfter?: { file: string; bytes: number };
}

export async function startHub(files: Record<string, Buffer>, options: HubOptions = {}) {
  const REPO = options.repo ?? DEFAULT_REPO;
  const meta = Object.fromEntries(
    Object.entries(files).map(([name, data]) => [
      name,
      { size: data.length, sha256: createHash("sha256").update(data).digest("hex"), oid: createHash("sha1").update(data).digest("hex") },
    ]),
  );
  const lfs = (name: string) => (name === "model.bin" ? { lfs: { sha256: meta[name]!.sha256, oid: meta[name]!.sha256, size: meta[name]!.size, pointerSize: 134 } } : {});
  const requests: string[] = [];
  const ranges: Array<{ file: string; range: string }> = [];
  const served: Record<string, number> = {};
  const dropped = new Set<string>();
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
      const headers = {
        "x-repo-commit": COMMIT,
        etag: `"${resolved === "model.bin" ? meta[resolved]!.sha256 : meta[resolved]!.oid}"`,
        "content-type": "application/octet-stream",
        "accept-ranges": "bytes",
        ...(resolved === "model.bin" ? { "x-linked-etag": `"${meta[resolved]!.sha256}"`, "x-linked-size": String(body.length) } : {}),
      };
      if (req.method === "HEAD") {
        res.writeHead(200, { ...headers, "content-length": body.length });
        return res.end();
      }
      const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
      if (req.headers.range) ranges.push({ file: resolved, range: req.headers.range });
      if (range) {
        const start = Number(range[1]);
        const end = range[2] ? Number(range[2]) : body.length - 1;
        if (start >= body.length) {
          res.writeHead(416, { "content-range": `bytes */${body.length}` });
          return res.end();
        }
        const slice = body.subarray(start, end + 1);
        served[resolved] = (served[resolved] ?? 0) + slice.length;
        res.writeHead(206, { ...headers, "content-length": slice.length, "content-range": `bytes ${start}-${end}/${body.length}` });
        return res.end(slice);
      }
      const drop = options.dropAfter;
      if (drop?.file === resolved && !dropped.has(resolved)) {
        // The full length is promised, part of it sent, then the connection dies.
        dropped.add(resolved);
        res.writeHead(200, { ...headers, "content-length": body.length });
        served[resolved] = (served[resolved] ?? 0) + drop.bytes;
        res.write(body.subarray(0, drop.bytes), () => setTimeout(() => res.socket?.destroy(), 50));
        return;
      }
      served[resolved] = (served[resolved] ?? 0) + body.length;
      res.writeHead(200, { ...headers, "content-length": body.length });
      return res.end(body);
    }
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "not found" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    ranges,
    served,
    close: () => {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

/** A small model in the hub's layout: the protocol is under test here, not the weights. */
export function fakeModel(modelBytes: number): Record<string, Buffer> {
  return {
    "config.json": Buffer.from(JSON.stringify({ alignment_heads: [[1, 0]], lang_ids: [], suppress_ids: [], suppress_ids_begin: [] })),
    "tokenizer.json": Buffer.from(JSON.stringify({ version: "1.0", model: { type: "BPE", vocab: {} } })),
    "vocabulary.txt": Buffer.from("a\nb\nc\n"),
    "model.bin": randomBytes(modelBytes),
  };
}

