import http from "node:http";
import type { AddressInfo } from "node:net";
import { addressPolicy } from "@transcribe/platform";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postWebhook } from "../src/delivery/send.js";

describe("postWebhook: one attempt through the address guard", () => {
  let server: http.Server;
  let url: string;
  const hits: string[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      hits.push(req.url ?? "");
      if (req.url === "/redirect") return res.writeHead(307, { location: "/ok" }).end();
      if (req.url === "/fail") return res.writeHead(500).end();
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const allowLoopback = { policy: addressPolicy(["127.0.0.0/8"]), timeoutMs: 2_000 };

  it("posts to an allow-listed loopback receiver; a 2xx is success, a 5xx is not", async () => {
    expect(await postWebhook(`${url}/ok`, "{}", {}, allowLoopback)).toEqual({ ok: true, statusCode: 204 });
    expect(await postWebhook(`${url}/fail`, "{}", {}, allowLoopback)).toMatchObject({ ok: false, statusCode: 500 });
  });

  it("never follows a redirect", async () => {
    hits.length = 0;
    expect(await postWebhook(`${url}/redirect`, "{}", {}, allowLoopback)).toMatchObject({ ok: false, statusCode: 307, error: expect.stringContaining("Redirects are not followed") });
    expect(hits).toEqual(["/redirect"]);
  });

  it("refuses loopback without the allow-list, an IP literal as well as a name resolving to it, before connecting", async () => {
    hits.length = 0;
    const strict = { policy: addressPolicy([]), timeoutMs: 2_000 };
    expect(await postWebhook(`${url}/ok`, "{}", {}, strict)).toMatchObject({ ok: false, error: expect.stringContaining("private network") });
    const rebinding = { ...strict, resolver: async () => [{ address: "127.0.0.1", family: 4 }] };
    expect(await postWebhook(`http://hooks.example.test:${new URL(url).port}/ok`, "{}", {}, rebinding)).toMatchObject({ ok: false, error: expect.stringContaining("private network") });
    expect(hits).toEqual([]);
  });
});
