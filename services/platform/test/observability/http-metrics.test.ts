import Fastify from "fastify";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger, metricsText, observeHttpRequests, startMetricsServer } from "../../src/index.js";

function count(text: string, labels: string): number {
  const line = text.split("\n").find((l) => l.startsWith("http_server_request_duration_seconds_count{") && l.includes(labels));
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

describe("HTTP metrics", () => {
  const app = Fastify();
  observeHttpRequests(app);
  app.get("/items/:id", async (request) => ({ id: (request.params as { id: string }).id }));
  const closers: Array<() => Promise<unknown>> = [() => app.close()];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it("labels requests with the route pattern, never the raw path, and 404s as unmatched", async () => {
    const before = await metricsText();
    for (const id of ["1", "2", "3"]) expect((await app.inject({ method: "GET", url: `/items/${id}` })).statusCode).toBe(200);
    expect((await app.inject({ method: "GET", url: "/nowhere/42" })).statusCode).toBe(404);
    const after = await metricsText();
    expect(count(after, 'route="/items/:id",status_code="200"') - count(before, 'route="/items/:id",status_code="200"')).toBe(3);
    expect(count(after, 'route="unmatched",status_code="404"') - count(before, 'route="unmatched",status_code="404"')).toBe(1);
    expect(after).not.toContain("/items/1");
    expect(after).not.toContain("/nowhere");
  });

  it("serves /metrics on a port of its own (the BFF's METRICS_PORT), and nothing else there", async () => {
    const server = await startMetricsServer({ host: "127.0.0.1", port: 0, logger: createLogger("test", "silent") });
    closers.push(() => server.close());
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/plain");
    expect(await response.text()).toContain("# TYPE http_server_request_duration_seconds histogram");
    expect((await fetch(`${server.url}/api/v1/health`)).status).toBe(404);
  });
});
