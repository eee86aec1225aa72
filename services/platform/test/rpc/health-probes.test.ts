import { Code, ConnectError } from "@connectrpc/connect";
import { Health } from "@transcribe/proto/grpc/health/v1/health";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger, createServiceClient, startServiceServer, type ServiceServer } from "../../src/index.js";

const logger = createLogger("health-probes-test", "silent");
const servers: ServiceServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/**
 * The unauthenticated answers of a service port (/readyz, grpc.health.v1): no dependency
 * error text, one readiness probe shared by every caller, and a bound on Watch streams.
 */
describe("unauthenticated health answers on a service port", () => {
  it("/readyz names the failing dependency but not its error text", async () => {
    const secretish = "password authentication failed for user \"media\" at 10.11.12.13:5432";
    const server = await startServiceServer({
      name: "media",
      host: "127.0.0.1",
      port: 0,
      logger,
      readiness: [{ name: "database", check: () => Promise.reject(new Error(secretish)) }],
    });
    servers.push(server);
    const answer = await fetch(`${server.url}/readyz`);
    expect(answer.status).toBe(503);
    const text = await answer.text();
    expect(text).not.toContain("10.11.12.13");
    expect(text).not.toContain("password");
    expect(JSON.parse(text)).toMatchObject({ service: "media", ok: false, dependencies: [{ name: "database", ok: false }] });
  });

  it("grpc.health.v1 Watch: many streams share one probe, and streams past the limit are refused", async () => {
    let probes = 0;
    const server = await startServiceServer({
      name: "media",
      host: "127.0.0.1",
      port: 0,
      logger,
      readiness: [
        {
          name: "database",
          check: async () => {
            probes += 1;
          },
        },
      ],
      maxHealthWatches: 20,
    });
    servers.push(server);
    const client = createServiceClient(Health, server.url, { timeoutMs: 30_000 });
    const controller = new AbortController();
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, async () => {
        try {
          for await (const message of client.watch({ service: "" }, { signal: controller.signal })) return message.status;
          return "ended";
        } catch (error) {
          return ConnectError.from(error).code;
        }
      }),
    );
    // 20 streams got their first status; the 10 over the limit were refused.
    expect(outcomes.filter((o) => o === Code.ResourceExhausted)).toHaveLength(10);
    expect(outcomes.filter((o) => o === 1 /* SERVING */)).toHaveLength(20);
    // Twenty watchers (and /readyz callers) cost one database ping, not twenty.
    await Promise.all(Array.from({ length: 10 }, () => fetch(`${server.url}/readyz`)));
    expect(probes).toBeLessThanOrEqual(2);
    controller.abort();
  });
});
