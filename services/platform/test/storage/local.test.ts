import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "../../src/errors.js";
import { LocalObjectStorage } from "../../src/storage/local.js";
import { RangeNotSatisfiableError } from "../../src/storage/port.js";
import { generatedStream, listTree, makeSandbox, readAll, sha256Of, SECRET } from "./helpers.js";

type Sandbox = Awaited<ReturnType<typeof makeSandbox>>;
let box: Sandbox;

beforeEach(async () => {
  box = await makeSandbox();
});
afterEach(async () => {
  await box.cleanup();
});

async function expectAppError(promise: Promise<unknown>, code: string): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected AppError(${code})`).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe(code);
  return error as AppError;
}

describe("LocalObjectStorage round trip", () => {
  it("streams a multi-MB object in and out, heads it and deletes it idempotently", async () => {
    const data = generatedStream(5 * 1024 * 1024 + 123);
    const put = await box.storage.putObject("users/u1/rec.mp3", data.stream(), {
      contentType: "audio/mpeg",
      contentLength: data.size,
    });
    expect(put).toMatchObject({ key: "users/u1/rec.mp3", size: data.size, contentType: "audio/mpeg" });

    const head = await box.storage.headObject("users/u1/rec.mp3");
    expect(head).toMatchObject({ size: data.size, contentType: "audio/mpeg" });
    expect(head?.lastModified).toBeInstanceOf(Date);

    const got = await box.storage.getObject("users/u1/rec.mp3");
    expect(got.size).toBe(data.size);
    expect(got.contentType).toBe("audio/mpeg");
    expect(got.contentRange).toBeUndefined();
    expect(await sha256Of(got.body)).toEqual({ sha256: data.sha256, size: data.size });

    // Only the object and its sidecar: no temp file survives a successful write.
    expect(await listTree(box.root)).toEqual(["users", "users/u1", "users/u1/rec.mp3", "users/u1/rec.mp3~meta.json"]);

    await box.storage.deleteObject("users/u1/rec.mp3");
    expect(await box.storage.headObject("users/u1/rec.mp3")).toBeNull();
    await expectAppError(box.storage.getObject("users/u1/rec.mp3"), "not_found");
    await box.storage.deleteObject("users/u1/rec.mp3");
    await box.storage.deleteObject("never/existed");
    expect(await listTree(box.root)).toEqual([]);
  });

  it("stores a Uint8Array body and defaults the content type", async () => {
    await box.storage.putObject("a.bin", new Uint8Array([1, 2, 3]));
    const got = await box.storage.getObject("a.bin");
    expect(got.contentType).toBe("application/octet-stream");
    expect([...(await readAll(got.body))]).toEqual([1, 2, 3]);
  });

  it("replaces an object atomically and keeps the old one when the new body fails", async () => {
    await box.storage.putObject("k.txt", Buffer.from("old contents"), { contentType: "text/plain" });
    async function* failing() {
      yield Buffer.alloc(100_000, 1);
      throw new Error("client went away");
    }
    await expect(box.storage.putObject("k.txt", Readable.from(failing()), { contentType: "audio/wav" })).rejects.toThrow(
      "client went away",
    );
    const got = await box.storage.getObject("k.txt");
    expect((await readAll(got.body)).toString()).toBe("old contents");
    expect(got.contentType).toBe("text/plain");
    expect(await listTree(box.root)).toEqual(["k.txt", "k.txt~meta.json"]);

    await box.storage.putObject("k.txt", Buffer.from("new"), { contentType: "audio/wav" });
    const replaced = await box.storage.getObject("k.txt");
    expect(replaced.contentType).toBe("audio/wav");
    expect((await readAll(replaced.body)).toString()).toBe("new");
  });

  it.each([
    ["longer stream", () => generatedStream(2000).stream(), 1000],
    ["shorter stream", () => generatedStream(999).stream(), 1000],
    ["longer bytes", () => Buffer.alloc(1001), 1000],
    ["shorter bytes", () => Buffer.alloc(10), 1000],
  ])("refuses a %s than the declared length and stores nothing", async (_name, body, declared) => {
    const error = await expectAppError(
      box.storage.putObject("d/x.bin", body(), { contentLength: declared }),
      "invalid_argument",
    );
    expect(error.detail).toMatchObject({ reason: "content_length_mismatch" });
    expect(await box.storage.headObject("d/x.bin")).toBeNull();
    expect(await listTree(box.root)).toEqual([]);
  });

  it("refuses a key whose prefix is already an object", async () => {
    await box.storage.putObject("a", Buffer.from("x"));
    await expectAppError(box.storage.putObject("a/b", Buffer.from("y")), "failed_precondition");
    await box.storage.putObject("d/e", Buffer.from("y"));
    await expectAppError(box.storage.putObject("d", Buffer.from("z")), "failed_precondition");
    expect(await listTree(box.root)).toEqual(["a", "a~meta.json", "d", "d/e", "d/e~meta.json"]);
  });

  it("ignores a sidecar that does not belong to the data beside it", async () => {
    await box.storage.putObject("s.bin", Buffer.from("1234"), { contentType: "audio/ogg" });
    // Simulates a crash between the data rename and the sidecar rename.
    await writeFile(path.join(box.root, "s.bin"), "123456789");
    expect(await box.storage.headObject("s.bin")).toMatchObject({ size: 9, contentType: "application/octet-stream" });
  });
});

describe("LocalObjectStorage ranges", () => {
  const bytes = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  beforeEach(async () => {
    await box.storage.putObject("r.bin", bytes, { contentType: "audio/mpeg" });
  });

  it.each([
    ["first bytes", { start: 0, end: 9 }, 0, 9],
    ["middle", { start: 400, end: 599 }, 400, 599],
    ["open end", { start: 990 }, 990, 999],
    ["end past size", { start: 995, end: 5000 }, 995, 999],
    ["suffix", { suffixLength: 100 }, 900, 999],
    ["suffix longer than object", { suffixLength: 5000 }, 0, 999],
  ])("reads %s", async (_name, range, start, end) => {
    const got = await box.storage.getObject("r.bin", { range });
    expect(got.contentRange).toEqual({ start, end, totalSize: 1000 });
    expect(got.size).toBe(end - start + 1);
    expect(await readAll(got.body)).toEqual(bytes.subarray(start, end + 1));
  });

  it.each([[{ start: 1000 }], [{ start: 5000, end: 6000 }], [{ suffixLength: 0 }]])(
    "refuses unsatisfiable %j with the object size",
    async (range) => {
      const error = await box.storage.getObject("r.bin", { range }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RangeNotSatisfiableError);
      expect((error as RangeNotSatisfiableError).objectSize).toBe(1000);
      expect((error as RangeNotSatisfiableError).code).toBe("invalid_argument");
    },
  );
});

describe("LocalObjectStorage key safety", () => {
  const badKeys = ["../x", "a/../../x", "/etc/passwd", "a\\b", "..", "a/./b", "a//b", "a/", "", "a\0b", "%2e%2e/x", "a b", "x".repeat(1025)];

  it.each(badKeys)("refuses %j everywhere and writes nothing", async (key) => {
    const s = box.storage;
    await expectAppError(s.putObject(key, Buffer.from("pwned")), "invalid_argument");
    await expectAppError(s.getObject(key), "invalid_argument");
    await expectAppError(s.headObject(key), "invalid_argument");
    await expectAppError(s.deleteObject(key), "invalid_argument");
    await expectAppError(s.presignGet(key, { expiresInSeconds: 60 }), "invalid_argument");
    await expectAppError(
      s.presignPut(key, { expiresInSeconds: 60, contentType: "audio/mpeg", contentLength: 5 }),
      "invalid_argument",
    );
    expect(await listTree(box.root)).toEqual([]);
    expect(await listTree(box.outside)).toEqual([]);
    expect((await listTree(box.base)).sort()).toEqual(["outside", "root"]);
  });

  it("does not follow a directory symlink out of the root", async () => {
    await symlink(box.outside, path.join(box.root, "link"), "dir");
    await writeFile(path.join(box.outside, "secret"), "top secret");

    await expectAppError(box.storage.putObject("link/x", Buffer.from("pwned")), "permission_denied");
    await expectAppError(box.storage.getObject("link/secret"), "permission_denied");
    await expectAppError(box.storage.headObject("link/secret"), "permission_denied");
    await expectAppError(box.storage.deleteObject("link/secret"), "permission_denied");
    await expectAppError(box.storage.deleteObjects("link/"), "permission_denied");
    expect(await listTree(box.outside)).toEqual(["secret"]);
    expect(await readFile(path.join(box.outside, "secret"), "utf8")).toBe("top secret");
  });

  it("treats a file symlink as no object and never writes through it", async () => {
    await writeFile(path.join(box.outside, "secret"), "top secret");
    await symlink(path.join(box.outside, "secret"), path.join(box.root, "evil.mp3"));

    await expectAppError(box.storage.getObject("evil.mp3"), "not_found");
    expect(await box.storage.headObject("evil.mp3")).toBeNull();
    await box.storage.putObject("evil.mp3", Buffer.from("overwritten"));
    // The link itself was replaced; its target is untouched.
    expect(await readFile(path.join(box.outside, "secret"), "utf8")).toBe("top secret");
    expect((await readAll((await box.storage.getObject("evil.mp3")).body)).toString()).toBe("overwritten");
  });
});

describe("LocalObjectStorage.deleteObjects", () => {
  beforeEach(async () => {
    for (const key of ["users/u1/a.mp3", "users/u1/sub/b.wav", "users/u10/c.mp3", "users/u2/d.mp3", "other/e"]) {
      await box.storage.putObject(key, Buffer.from(key));
    }
  });

  it("purges exactly the objects under a directory prefix", async () => {
    expect(await box.storage.deleteObjects("users/u1/")).toEqual({ deleted: 2 });
    expect(await box.storage.headObject("users/u1/a.mp3")).toBeNull();
    expect(await box.storage.headObject("users/u1/sub/b.wav")).toBeNull();
    expect(await box.storage.headObject("users/u10/c.mp3")).not.toBeNull();
    expect(await listTree(path.join(box.root, "users"))).not.toContain("u1");
    expect(await box.storage.deleteObjects("users/u1/")).toEqual({ deleted: 0 });
  });

  it("uses plain string-prefix semantics like S3", async () => {
    expect(await box.storage.deleteObjects("users/u1")).toEqual({ deleted: 3 });
    expect(await box.storage.headObject("users/u2/d.mp3")).not.toBeNull();
    expect(await box.storage.deleteObjects("oth")).toEqual({ deleted: 1 });
  });

  it.each(["", "/", "../", "users/../"])("refuses the prefix %j", async (prefix) => {
    await expectAppError(box.storage.deleteObjects(prefix), "invalid_argument");
    expect(await box.storage.headObject("other/e")).not.toBeNull();
  });
});

describe("LocalObjectStorage signed URLs", () => {
  it("signs a PUT URL that binds method, key, expiry, type and length", async () => {
    const { url, expiresAt } = await box.storage.presignPut("up/f.mp3", {
      expiresInSeconds: 600,
      contentType: "audio/mpeg",
      contentLength: 1234,
    });
    const parsed = new URL(url);
    expect(`${parsed.origin}${parsed.pathname}`).toBe("http://127.0.0.1:8080/storage/up/f.mp3");
    expect(Object.fromEntries(parsed.searchParams)).toMatchObject({
      method: "PUT",
      ct: "audio/mpeg",
      len: "1234",
      expires: String(Math.floor(box.clock.now / 1000) + 600),
    });
    expect(expiresAt.getTime()).toBe(Number(parsed.searchParams.get("expires")) * 1000);
    const query = parsed.searchParams;
    expect(box.storage.verifySignedRequest({ method: "PUT", key: "up/f.mp3", query })).toMatchObject({
      ok: true,
      claims: { contentType: "audio/mpeg", contentLength: 1234 },
    });

    const verify = (q: URLSearchParams, key = "up/f.mp3", method: "GET" | "PUT" = "PUT") =>
      box.storage.verifySignedRequest({ method, key, query: q });
    const edited = (name: string, value: string) => {
      const q = new URLSearchParams(query);
      q.set(name, value);
      return q;
    };
    expect(verify(edited("len", "999999"))).toEqual({ ok: false, reason: "bad signature" });
    expect(verify(edited("ct", "text/html"))).toEqual({ ok: false, reason: "bad signature" });
    expect(verify(edited("expires", String(Number(query.get("expires")) + 1)))).toEqual({ ok: false, reason: "bad signature" });
    expect(verify(edited("method", "GET"), "up/f.mp3", "GET")).toEqual({ ok: false, reason: "bad signature" });
    expect(verify(query, "up/g.mp3")).toEqual({ ok: false, reason: "bad signature" });
    expect(verify(query, "up/f.mp3", "GET")).toEqual({ ok: false, reason: "method mismatch" });
    const sig = query.get("sig") as string;
    expect(verify(edited("sig", sig.slice(0, -1) + (sig.endsWith("A") ? "B" : "A")))).toEqual({ ok: false, reason: "bad signature" });
    expect(verify(edited("sig", `${sig}=`))).toEqual({ ok: false, reason: "bad signature" });
    const withoutLen = new URLSearchParams(query);
    withoutLen.delete("len");
    expect(verify(withoutLen)).toEqual({ ok: false, reason: "malformed" });
    const doubled = new URLSearchParams(query);
    doubled.append("ct", "audio/mpeg");
    expect(verify(doubled)).toEqual({ ok: false, reason: "malformed" });

    box.clock.now += 600_000;
    expect(verify(query)).toEqual({ ok: false, reason: "expired" });
  });

  it("signs the download file name of a GET URL", async () => {
    const { url } = await box.storage.presignGet("exports/t.pdf", { expiresInSeconds: 60, fileName: "Report.pdf" });
    const query = new URL(url).searchParams;
    expect(query.get("fn")).toBe("Report.pdf");
    expect(box.storage.verifySignedRequest({ method: "GET", key: "exports/t.pdf", query })).toMatchObject({
      ok: true,
      claims: { fileName: "Report.pdf" },
    });
    query.set("fn", "Other.exe");
    expect(box.storage.verifySignedRequest({ method: "GET", key: "exports/t.pdf", query })).toEqual({
      ok: false,
      reason: "bad signature",
    });
  });

  it("does not accept URLs signed with another secret", async () => {
    const other = new LocalObjectStorage({
      rootDir: box.root,
      publicBaseUrl: "http://127.0.0.1:8080/storage",
      signingSecret: `${SECRET}-other`,
    });
    const { url } = await other.presignGet("k", { expiresInSeconds: 60 });
    expect(box.storage.verifySignedRequest({ method: "GET", key: "k", query: new URL(url).searchParams })).toEqual({
      ok: false,
      reason: "bad signature",
    });
  });

  it.each([
    [{ expiresInSeconds: 0, contentType: "audio/mpeg", contentLength: 1 }],
    [{ expiresInSeconds: 8 * 24 * 3600, contentType: "audio/mpeg", contentLength: 1 }],
    [{ expiresInSeconds: 60, contentType: "audio/mpeg\r\nx-evil: 1", contentLength: 1 }],
    [{ expiresInSeconds: 60, contentType: "audio/mpeg", contentLength: -1 }],
    [{ expiresInSeconds: 60, contentType: "audio/mpeg", contentLength: 1.5 }],
  ])("refuses to presign %j", async (options) => {
    await expectAppError(box.storage.presignPut("k", options), "invalid_argument");
  });
});

describe("LocalObjectStorage configuration", () => {
  it.each([
    [{ signingSecret: "short" }],
    [{ publicBaseUrl: "ftp://x/storage" }],
    [{ publicBaseUrl: "http://x/storage?a=1" }],
    [{ publicBaseUrl: "not a url" }],
  ])("rejects %j", (override) => {
    expect(
      () => new LocalObjectStorage({ rootDir: box.root, publicBaseUrl: "http://x/storage", signingSecret: SECRET, ...override }),
    ).toThrow(/Invalid configuration/);
  });

  it("reports an unusable root as unavailable", async () => {
    const file = path.join(box.base, "not-a-dir");
    await writeFile(file, "");
    const broken = new LocalObjectStorage({ rootDir: path.join(file, "root"), publicBaseUrl: "http://x/s", signingSecret: SECRET });
    await expectAppError(broken.ping(), "unavailable");
  });

  it("creates a missing root on first use", async () => {
    const fresh = new LocalObjectStorage({
      rootDir: path.join(box.base, "later", "root"),
      publicBaseUrl: "http://x/s",
      signingSecret: SECRET,
    });
    await fresh.putObject("k", Buffer.from("v"));
    await mkdir(path.join(box.base, "later", "root"), { recursive: true });
    expect(await fresh.headObject("k")).toMatchObject({ size: 1 });
  });
});
