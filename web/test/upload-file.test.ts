// The PUT of the bytes with progress and cancel, against a fake XMLHttpRequest (the
// network boundary: fetch cannot report upload progress).
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkFile, contentTypeOf, putFile, UploadAbortedError } from "../src/features/upload/upload-file";

class FakeXhr {
  static last: FakeXhr | undefined;
  method = "";
  url = "";
  headers: Record<string, string> = {};
  body: unknown;
  status = 0;
  statusText = "";
  responseText = "";
  aborted = false;
  private listeners = new Map<string, ((event: unknown) => void)[]>();
  private uploadListeners = new Map<string, ((event: unknown) => void)[]>();
  upload = { addEventListener: (type: string, fn: (event: unknown) => void) => this.uploadListeners.set(type, [...(this.uploadListeners.get(type) ?? []), fn]) };
  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  addEventListener(type: string, fn: (event: unknown) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  send(body: unknown) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.emit("abort");
  }
  progress(loaded: number, total: number) {
    for (const fn of this.uploadListeners.get("progress") ?? []) fn({ lengthComputable: true, loaded, total });
  }
  respond(status: number, text = "") {
    this.status = status;
    this.responseText = text;
    this.emit("load");
  }
  emit(type: string) {
    for (const fn of this.listeners.get(type) ?? []) fn({});
  }
}

afterEach(() => vi.unstubAllGlobals());

describe("putFile", () => {
  it("PUTs the bytes with the declared type and reports progress up to 100%", async () => {
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    const progress: number[] = [];
    const file = new Blob(["abc"]);
    const done = putFile({ url: "/api/v1/storage/u/1?sig=x", file, contentType: "audio/mpeg", onProgress: (p) => progress.push(p) });
    const xhr = FakeXhr.last!;
    expect([xhr.method, xhr.url, xhr.headers["Content-Type"], xhr.body]).toEqual(["PUT", "/api/v1/storage/u/1?sig=x", "audio/mpeg", file]);
    xhr.progress(1, 4);
    xhr.respond(200);
    await done;
    expect(progress).toEqual([0.25, 1]);
  });

  it("cancel aborts the request", async () => {
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    const controller = new AbortController();
    const done = putFile({ url: "/u", file: new Blob(["a"]), contentType: "audio/wav", signal: controller.signal });
    controller.abort();
    await expect(done).rejects.toBeInstanceOf(UploadAbortedError);
    expect(FakeXhr.last!.aborted).toBe(true);
  });

  it("an error answer rejects with the server's message", async () => {
    vi.stubGlobal("XMLHttpRequest", FakeXhr);
    const done = putFile({ url: "/u", file: new Blob(["a"]), contentType: "audio/wav" });
    FakeXhr.last!.respond(403, JSON.stringify({ error: { code: "forbidden", message: "Upload link expired" } }));
    await expect(done).rejects.toThrow("Upload link expired");
  });
});

describe("checkFile", () => {
  it("guesses the type from the extension when the browser gives none", () => {
    expect(contentTypeOf({ name: "a.m4a", type: "" })).toBe("audio/mp4");
    expect(checkFile({ name: "a.flac", type: "", size: 10 })).toEqual([]);
    expect(checkFile({ name: "a.exe", type: "", size: 10 })[0]).toMatch(/^Invalid file type\. Allowed types: /);
  });
});
