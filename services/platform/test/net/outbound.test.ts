import http from "node:http";
import type { AddressInfo } from "node:net";
import { TranscriptionStatus, TranscriptionStatusSchema } from "@transcribe/proto/transcription/v1/transcription";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addressPolicy,
  AppError,
  contentTypeForFileName,
  enumNames,
  normalizeUploadContentType,
  type OutboundMessages,
  openOutbound,
  UPLOAD_CONTENT_TYPES,
} from "../../src/index.js";

const messages: OutboundMessages = {
  invalidUrl: "invalid",
  scheme: "scheme",
  credentials: "credentials",
  forbidden: "forbidden",
  unresolvable: (host) => `unresolvable ${host}`,
  tooManyRedirects: "redirects",
  status: (status) => `status ${status}`,
  failed: (why) => `failed: ${why}`,
  timeout: "timeout",
};

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return (error as AppError).message;
}

describe("openOutbound", () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (request.url === "/loop") return void response.writeHead(302, { location: "/loop" }).end();
      if (request.url === "/to-ok") return void response.writeHead(302, { location: "/ok" }).end();
      if (request.url === "/missing") return void response.writeHead(404).end();
      response.writeHead(200, { "content-type": "text/plain" }).end("hello");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const open = (url: string, allow: string[] = ["127.0.0.1/32"]) =>
    openOutbound(url, { policy: addressPolicy(allow, "TEST_ALLOW_CIDRS"), messages, maxRedirects: 2, timeoutMs: 10_000, headers: {} });

  it("refuses what is not http(s), carries credentials, or resolves to a private address", async () => {
    expect(await refusal(open("not a url"))).toBe("invalid");
    expect(await refusal(open("ftp://example.com/x"))).toBe("scheme");
    expect(await refusal(open("http://user:pw@example.com/x"))).toBe("credentials");
    expect(await refusal(open(`${base}/ok`, []))).toBe("forbidden");
  });

  it("follows redirects up to the limit and answers the final 2xx", async () => {
    const { response, url } = await open(`${base}/to-ok`);
    expect(url.pathname).toBe("/ok");
    let body = "";
    for await (const chunk of response) body += String(chunk);
    expect(body).toBe("hello");
    expect(await refusal(open(`${base}/loop`))).toBe("redirects");
    expect(await refusal(open(`${base}/missing`))).toBe("status 404");
  });
});

describe("upload content types", () => {
  it("one table: names, labels and the raw object's extension agree", () => {
    expect(contentTypeForFileName("talk.WEBM")).toBe("video/webm");
    expect(contentTypeForFileName("talk.weba")).toBe("audio/webm");
    expect(contentTypeForFileName("voice.mpga")).toBe("audio/mpeg");
    expect(contentTypeForFileName("mp3")).toBeUndefined();
    expect(normalizeUploadContentType("Audio/Webm; codecs=opus")).toBe("audio/webm");
    expect(normalizeUploadContentType("application/octet-stream")).toBeUndefined();
    expect(normalizeUploadContentType("toString")).toBeUndefined();
    for (const extension of ["mp3", "wav", "m4a", "flac", "ogg", "webm", "mp4"]) {
      expect(Object.keys(UPLOAD_CONTENT_TYPES)).toContain(contentTypeForFileName(`x.${extension}`));
    }
  });
});

describe("enumNames", () => {
  it("reads a proto enum's names from its generated descriptor", () => {
    const status = enumNames<TranscriptionStatus>(TranscriptionStatusSchema);
    expect(status.names).toEqual(["pending", "processing", "transcribing", "completed", "failed", "deleted"]);
    expect(status.name(TranscriptionStatus.COMPLETED)).toBe("completed");
    expect(status.name(TranscriptionStatus.UNSPECIFIED)).toBeUndefined();
    expect(status.value("failed")).toBe(TranscriptionStatus.FAILED);
    expect(status.value("unspecified")).toBeUndefined();
  });
});
