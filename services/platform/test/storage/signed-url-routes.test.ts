import { request as httpRequest } from "node:http";
import { type AddressInfo, connect, type Socket } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ObjectMetadata } from "../../src/storage/port.js";
import { localStorageRoutes, type SignedUrlStorage } from "../../src/storage/signed-url-routes.js";
import { generatedStream, listTree, makeSandbox } from "./helpers.js";

type Sandbox = Awaited<ReturnType<typeof makeSandbox>>;
let box: Sandbox;
let app: FastifyInstance;
let uploads: Array<[string, number]>;
let failNextOnPut: boolean;

beforeEach(async () => {
  box = await makeSandbox();
  uploads = [];
  failNextOnPut = false;
  app = Fastify();
  await app.register(
    localStorageRoutes(box.storage, {
      prefix: "/storage",
      onPut: (key, size) => {
        if (failNextOnPut) throw new Error("event bus down");
        uploads.push([key, size]);
      },
    }),
  );
  // A sibling route proves the plugin's catch-all body handling stays encapsulated.
  app.post("/json", async (request) => ({ echoed: request.body }));
  await app.ready();
});

afterEach(async () => {
  await app.close();
  await box.cleanup();
});

/** Path and query of a presigned URL, as the browser would request it. */
const target = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

const presignPut = (key: string, contentLength: number, contentType = "audio/mpeg") =>
  box.storage.presignPut(key, { expiresInSeconds: 900, contentType, contentLength }).then((p) => target(p.url));

const presignGet = (key: string, fileName?: string) =>
  box.storage
    .presignGet(key, fileName === undefined ? { expiresInSeconds: 900 } : { expiresInSeconds: 900, fileName })
    .then((p) => target(p.url));

async function expectNothingStored() {
  expect(await listTree(box.root)).toEqual([]);
  expect(await listTree(box.outside)).toEqual([]);
  expect(uploads).toEqual([]);
}

describe("signed PUT and GET", () => {
  it("uploads a multi-MB body and serves it back with full headers", async () => {
    const data = generatedStream(3 * 1024 * 1024 + 7);
    const put = await app.inject({
      method: "PUT",
      url: await presignPut("users/u1/rec.mp3", data.size),
      headers: { "content-type": "audio/mpeg" },
      payload: data.bytes(),
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(uploads).toEqual([["users/u1/rec.mp3", data.size]]);

    const get = await app.inject({ method: "GET", url: await presignGet("users/u1/rec.mp3") });
    expect(get.statusCode).toBe(200);
    expect(get.headers).toMatchObject({
      "content-type": "audio/mpeg",
      "content-length": String(data.size),
      "accept-ranges": "bytes",
      "x-content-type-options": "nosniff",
    });
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(get.headers["cache-control"]))?.[1]);
    expect(maxAge).toBeGreaterThan(800);
    expect(maxAge).toBeLessThanOrEqual(900);
    expect(get.headers["content-disposition"]).toBeUndefined();
    expect(get.rawPayload.equals(data.bytes())).toBe(true);

    const head = await app.inject({ method: "HEAD", url: await presignGet("users/u1/rec.mp3") });
    expect(head.statusCode).toBe(200);
    expect(head.headers["content-length"]).toBe(String(data.size));
    expect(head.rawPayload.length).toBe(0);
  });

  it("answers 404 with the JSON error shape for a validly signed missing object", async () => {
    const res = await app.inject({ method: "GET", url: await presignGet("missing/file.mp3") });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: "not_found", message: "Object not found" } });
    expect(res.headers["cache-control"]).toBeUndefined();
  });

  it("leaves JSON parsing of other routes alone", async () => {
    const res = await app.inject({ method: "POST", url: "/json", payload: { a: 1 } });
    expect(res.json()).toEqual({ echoed: { a: 1 } });
  });

  it("answers 500 when onPut fails, with the object stored for an idempotent retry", async () => {
    failNextOnPut = true;
    const url = await presignPut("k.mp3", 3);
    const res = await app.inject({ method: "PUT", url, headers: { "content-type": "audio/mpeg" }, payload: "abc" });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: { code: "internal", message: "Internal error" } });
    expect(await box.storage.headObject("k.mp3")).toMatchObject({ size: 3 });
  });
});

describe("ranges", () => {
  const bytes = Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 7) % 256));
  let url: string;
  beforeEach(async () => {
    await box.storage.putObject("r/a.mp3", bytes, { contentType: "audio/mpeg" });
    url = await presignGet("r/a.mp3");
  });

  it.each([
    ["first bytes", "bytes=0-99", 0, 99],
    ["middle", "bytes=4000-4999", 4000, 4999],
    ["open end", "bytes=9990-", 9990, 9999],
    ["suffix", "bytes=-100", 9900, 9999],
    ["end past size", "bytes=9000-20000", 9000, 9999],
  ])("serves %s as 206", async (_name, range, start, end) => {
    const res = await app.inject({ method: "GET", url, headers: { range } });
    expect(res.statusCode).toBe(206);
    expect(res.headers["content-range"]).toBe(`bytes ${start}-${end}/10000`);
    expect(res.headers["content-length"]).toBe(String(end - start + 1));
    expect(res.rawPayload.equals(bytes.subarray(start, end + 1))).toBe(true);
  });

  it.each(["bytes=10000-", "bytes=20000-30000", "bytes=-0"])("answers 416 for %s", async (range) => {
    const res = await app.inject({ method: "GET", url, headers: { range } });
    expect(res.statusCode).toBe(416);
    expect(res.headers["content-range"]).toBe("bytes */10000");
    expect(res.json().error.code).toBe("invalid_argument");
  });

  it.each(["bytes=0-1,5-6", "bytes=9-5", "lines=1-2"])("serves the whole object for the unusable %s", async (range) => {
    const res = await app.inject({ method: "GET", url, headers: { range } });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.length).toBe(10_000);
  });
});

describe("refused uploads store nothing", () => {
  const body = Buffer.alloc(1000, 7);

  it.each([
    ["longer than signed", 999, "audio/mpeg", 400],
    ["shorter than signed", 1001, "audio/mpeg", 400],
    ["with another content type", 1000, "text/html", 400],
  ])("PUT %s", async (_name, signedLength, sentType, status) => {
    const url = await presignPut("u/a.mp3", signedLength);
    const res = await app.inject({ method: "PUT", url, headers: { "content-type": sentType }, payload: body });
    expect(res.statusCode).toBe(status);
    expect(res.json().error.code).toBe("invalid_argument");
    await expectNothingStored();
  });

  it("PUT without a content type", async () => {
    const url = await presignPut("u/a.mp3", 1000);
    const res = await app.inject({ method: "PUT", url, payload: body });
    expect(res.statusCode).toBe(400);
    await expectNothingStored();
  });

  async function expectForbidden(url: string, method: "PUT" | "GET" = "PUT", message?: RegExp) {
    const res = await app.inject({ method, url, headers: { "content-type": "audio/mpeg" }, payload: body });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe("permission_denied");
    if (message) expect(res.json().error.message).toMatch(message);
    await expectNothingStored();
  }

  it("expired URL", async () => {
    const url = await presignPut("u/a.mp3", 1000);
    box.clock.now += 901_000;
    await expectForbidden(url, "PUT", /expired/);
  });

  it("tampered signature", async () => {
    const url = new URL(await presignPut("u/a.mp3", 1000), "http://x");
    const sig = url.searchParams.get("sig") as string;
    url.searchParams.set("sig", (sig[0] === "A" ? "B" : "A") + sig.slice(1));
    await expectForbidden(target(url.href), "PUT", /invalid or has been altered/);
  });

  it("tampered key", async () => {
    const url = (await presignPut("u/a.mp3", 1000)).replace("/storage/u/a.mp3", "/storage/u/b.mp3");
    await expectForbidden(url, "PUT", /invalid or has been altered/);
  });

  it("tampered length", async () => {
    const url = (await presignPut("u/a.mp3", 10)).replace("len=10", "len=1000");
    await expectForbidden(url, "PUT", /invalid or has been altered/);
  });

  it("GET URL used for PUT", async () => {
    await expectForbidden(await presignGet("u/a.mp3"), "PUT", /does not allow/);
  });

  it("PUT URL used for GET", async () => {
    await box.storage.putObject("u/a.mp3", body);
    const res = await app.inject({ method: "GET", url: await presignPut("u/a.mp3", 1000) });
    expect(res.statusCode).toBe(403);
  });

  it("missing signature", async () => {
    await expectForbidden("/storage/u/a.mp3", "PUT", /malformed/);
  });
});

describe("Content-Disposition", () => {
  it("is ASCII-safe and carries a non-Latin name through RFC 5987", async () => {
    await box.storage.putObject("exports/t.mp3", Buffer.from("x"), { contentType: "audio/mpeg" });
    const res = await app.inject({ method: "GET", url: await presignGet("exports/t.mp3", "Résumé 会议.mp3") });
    expect(res.statusCode).toBe(200);
    const header = res.headers["content-disposition"] as string;
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(header).toContain(`attachment; filename="Resume __.mp3"`);
    const extended = /filename\*=UTF-8''([^;\s]+)/.exec(header)?.[1] ?? "";
    expect(decodeURIComponent(extended)).toBe("Résumé 会议.mp3");
  });
});

describe("over real HTTP with chunked bodies", () => {
  let port: number;
  beforeEach(async () => {
    await app.listen({ host: "127.0.0.1", port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });

  /** Sends the body chunked (no Content-Length), so the length is only known by counting. */
  function putChunked(path: string, chunks: Buffer[]): Promise<{ status: number; body: string }> {
    return send("PUT", path, chunks, { "content-type": "audio/mpeg", "transfer-encoding": "chunked" });
  }

  function rawRequest(method: string, path: string, body: Buffer): Promise<{ status: number; body: string }> {
    return send(method, path, [body], { "content-type": "audio/mpeg", "content-length": String(body.length) });
  }

  function send(method: string, path: string, chunks: Buffer[], headers: Record<string, string>) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: "127.0.0.1", port, path, method, headers },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => (text += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on("error", reject);
      for (const chunk of chunks) req.write(chunk);
      req.end();
    });
  }

  it("stores a chunked body of exactly the signed length", async () => {
    const res = await putChunked(await presignPut("c/ok.mp3", 300_000), [Buffer.alloc(100_000, 1), Buffer.alloc(200_000, 2)]);
    expect(res.status).toBe(200);
    expect(await box.storage.headObject("c/ok.mp3")).toMatchObject({ size: 300_000, contentType: "audio/mpeg" });
  });

  it.each([
    ["longer", [Buffer.alloc(600_000, 1), Buffer.alloc(600_000, 2)], 1_000_000],
    ["shorter", [Buffer.alloc(1000, 1)], 1_000_000],
  ])("refuses a %s chunked body with 400 and stores nothing", async (_name, chunks, signed) => {
    const res = await putChunked(await presignPut("c/bad.mp3", signed), chunks);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe("invalid_argument");
    await expectNothingStored();
  });

  it("serves ranges over the wire", async () => {
    await box.storage.putObject("c/r.mp3", Buffer.from("0123456789"), { contentType: "audio/mpeg" });
    const res = await fetch(`http://127.0.0.1:${port}${await presignGet("c/r.mp3")}`, { headers: { range: "bytes=-3" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe("bytes 7-9/10");
    expect(await res.text()).toBe("789");
  });
  // Raw http.request because inject and fetch resolve dot segments (even %2e%2e) before
  // sending, which would never let the attack reach the server.
  it.each([
    "/storage/../x",
    "/storage/a/../../x",
    "/storage/%2e%2e/x",
    "/storage/%2E%2E/%2E%2E/x",
    "/storage/a/%2e%2e/%2e%2e/x",
    "/storage//etc/passwd",
    "/storage/a%5Cb",
    "/storage/a\\b",
    "/storage/a%2F..%2F..%2Fx",
    "/storage/a%00b",
  ])("refuses the traversal path %s with 400 and writes nothing", async (path) => {
    // Signed for a harmless key so only the path is under attack.
    const query = new URL(await presignPut("x", 5), "http://x").search;
    for (const method of ["PUT", "GET"] as const) {
      const res = await rawRequest(method, `${path}${query}`, Buffer.from("pwned"));
      expect(res.status, `${method} ${path}`).toBe(400);
      expect(JSON.parse(res.body).error.code).toBe("invalid_argument");
    }
    await expectNothingStored();
    expect((await listTree(box.base)).sort()).toEqual(["outside", "root"]);
  });
});

// Audit finding: a client that announced more bytes than it sent and closed at once
// crashed the process with an unhandled 'error' event on the upload body.
describe("interrupted uploads", () => {
  const SIGNED = 128_078;
  let server: FastifyInstance;
  let port: number;
  let puts: Array<Promise<ObjectMetadata>>;
  /** Holds putObject until the client's socket has closed (deterministic race); null: no hold. */
  let holdPutUntilClosed: Promise<void> | null;
  /** Holds the request before the route handler, until the client's socket has closed. */
  let holdHandlerUntilClosed: Promise<void> | null;
  let socketClosed: () => Promise<void>;
  let uncaught: unknown[];
  const onUncaught = (error: unknown) => uncaught.push(error);

  beforeEach(async () => {
    puts = [];
    uncaught = [];
    holdPutUntilClosed = null;
    holdHandlerUntilClosed = null;
    process.on("uncaughtException", onUncaught);
    const storage: SignedUrlStorage = {
      verifySignedRequest: (request) => box.storage.verifySignedRequest(request),
      headObject: (key) => box.storage.headObject(key),
      getObject: (key, options) => box.storage.getObject(key, options),
      putObject: (key, body, options) => {
        const hold = holdPutUntilClosed;
        const put = (hold ?? Promise.resolve()).then(() => box.storage.putObject(key, body, options));
        put.catch(() => {});
        puts.push(put);
        return put;
      },
    };
    server = Fastify();
    server.addHook("preHandler", async () => {
      if (holdHandlerUntilClosed) await holdHandlerUntilClosed;
    });
    await server.register(localStorageRoutes(storage, { prefix: "/storage" }));
    await server.listen({ host: "127.0.0.1", port: 0 });
    port = (server.server.address() as AddressInfo).port;
    // Resolves a little after the server side of the next connection has closed, once
    // the request's own 'close' has run.
    socketClosed = () =>
      new Promise<void>((resolve) => {
        server.server.once("connection", (socket: Socket) => {
          socket.once("close", () => setTimeout(resolve, 20));
        });
      });
  });

  afterEach(async () => {
    process.off("uncaughtException", onUncaught);
    await server.close();
  });

  /** Headers announcing SIGNED bytes, a few hundred of them, then the socket closed at once. */
  async function abortedPut(path: string): Promise<void> {
    (await partialPut(path)).destroy();
  }

  /** Headers announcing SIGNED bytes and a few hundred of them, on a socket left open. */
  async function partialPut(path: string): Promise<Socket> {
    const socket = connect(port, "127.0.0.1");
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    const head =
      `PUT ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: audio/mpeg\r\n` +
      `Content-Length: ${SIGNED}\r\n\r\n`;
    await new Promise<void>((resolve) => socket.write(Buffer.concat([Buffer.from(head), Buffer.alloc(300, 9)]), () => resolve()));
    return socket;
  }

  /** Every attempt's putObject, once settled; fails rather than waits forever on a hanging one. */
  async function putsSettled(attempts: number): Promise<Array<PromiseSettledResult<ObjectMetadata>>> {
    const deadline = Date.now() + 5000;
    while (puts.length < attempts && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error("putObject never settled: the body was left hanging")), Math.max(0, deadline - Date.now()));
    });
    try {
      return await Promise.race([Promise.allSettled(puts), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async function expectRefusedAndServerHealthy(key: string, attempts: number) {
    const results = await putsSettled(attempts);
    expect(results).toHaveLength(attempts);
    for (const result of results) {
      expect(result.status).toBe("rejected");
      expect(((result as PromiseRejectedResult).reason as Error).name).toBe("AppError");
    }
    expect(uncaught).toEqual([]);
    // No object, no temp file, no sidecar, no directory made for it.
    await expectNothingStored();
    // The same process still takes a whole upload.
    const ok = await fetch(`http://127.0.0.1:${port}${await presignPut(key, SIGNED)}`, {
      method: "PUT",
      headers: { "content-type": "audio/mpeg" },
      body: Buffer.alloc(SIGNED, 3),
    });
    expect(ok.status).toBe(200);
    expect(await box.storage.headObject(key)).toMatchObject({ size: SIGNED });
  }

  it.each([
    ["mid-body before putObject reads it", "put"],
    ["before the handler runs", "handler"],
  ] as const)("survives a client that closes %s, and stores nothing", async (_when, held) => {
    const url = await presignPut("users/u1/up/rec.mp3", SIGNED);
    for (let i = 0; i < 3; i += 1) {
      const closed = socketClosed();
      if (held === "put") holdPutUntilClosed = closed;
      else holdHandlerUntilClosed = closed;
      await abortedPut(url);
      await closed;
    }
    await expectRefusedAndServerHealthy("users/u1/up/rec.mp3", 3);
  });

  it("removes the partly written temp file when the client closes mid-write", async () => {
    const url = await presignPut("users/u1/up/rec.mp3", SIGNED);
    const closed = socketClosed();
    const socket = await partialPut(url);
    const deadline = Date.now() + 5000;
    while (!(await listTree(box.root)).some((entry) => entry.endsWith(".tmp")) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
    expect((await listTree(box.root)).some((entry) => entry.endsWith(".tmp"))).toBe(true);
    socket.destroy();
    await closed;
    await expectRefusedAndServerHealthy("users/u1/up/rec.mp3", 1);
  });

  it("survives repeated aborted PUTs at natural timing, and stores nothing", async () => {
    const url = await presignPut("users/u1/up/rec.mp3", SIGNED);
    for (let i = 0; i < 5; i += 1) {
      const closed = socketClosed();
      await abortedPut(url);
      await closed;
    }
    await expectRefusedAndServerHealthy("users/u1/up/rec.mp3", 5);
  });
});
