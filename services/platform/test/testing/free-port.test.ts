import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { freePort, freePortBlock } from "../../src/testing/index.js";

const listen = (port: number) =>
  new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });

describe("freePort", () => {
  it("hands out bindable ports below the kernel's ephemeral range, never the same one twice", async () => {
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeGreaterThanOrEqual(20_000);
    if (process.platform === "linux") for (const port of ports) expect(port).toBeLessThan(32_768);
    const server = await listen(ports[0]!);
    server.close();
  });

  it("does not hand out a port the kernel gave to a listen(0) meanwhile", async () => {
    const servers = await Promise.all(Array.from({ length: 20 }, () => listen(0)));
    const taken = new Set(servers.map((s) => (s.address() as { port: number }).port));
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) expect(taken.has(port)).toBe(false);
    for (const s of servers) s.close();
  });

  it("freePortBlock gives consecutive ports that all bind", async () => {
    const first = await freePortBlock(12);
    const servers = await Promise.all(Array.from({ length: 12 }, (_, k) => listen(first + k)));
    for (const s of servers) s.close();
  });
});
