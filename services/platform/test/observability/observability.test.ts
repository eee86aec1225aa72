import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, freePort } from "../../src/testing/index.js";
import { startOtlpReceiver, SpanKinds, type ReceivedSpan } from "./otlp-receiver.js";

const repoRoot = path.resolve(import.meta.dirname, "../../../..");
const preload = ["--import", "tsx", "--import", "@transcribe/platform/telemetry-preload"];

interface RunningProcess {
  child: ChildProcess;
  /** Every JSON log line so far. */
  lines: Array<Record<string, unknown>>;
  stop(): Promise<void>;
}

function start(entry: string, env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, [...preload, path.join(import.meta.dirname, entry)], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Array<Record<string, unknown>> = [];
  const raw: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => {
      raw.push(line);
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // Not a log line (a crash's stack trace): kept in raw for the failure message.
      }
    });
  }
  child.on("exit", (code) => {
    if (code !== 0 && code !== null) process.stderr.write(`${entry} exited ${code}:\n${raw.join("\n")}\n`);
  });
  return {
    child,
    lines,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The value of one series in Prometheus text, 0 when absent; labels must all match. */
function sample(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.lastIndexOf("}"));
    if (Object.entries(labels).every(([k, v]) => inside.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return 0;
}

async function metrics(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

const kafka = process.env.KAFKA_BROKERS?.trim();

describe(`traces, metrics and logs across two services (${kafka ? "Kafka" : "pg-boss"} event bus)`, () => {
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  const databases: Array<{ drop(): Promise<void> }> = [];
  let caller: RunningProcess;
  let callee: RunningProcess;
  let callerUrl: string;
  let calleeUrl: string;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const [callerDb, calleeDb, eventsDb] = await Promise.all([
      createTestDatabase("obs_caller"),
      createTestDatabase("obs_callee"),
      createTestDatabase("obs_events"),
    ]);
    databases.push(callerDb, calleeDb, eventsDb);
    const bus: Record<string, string> = kafka
      ? { EVENT_BUS: "kafka", KAFKA_BROKERS: kafka, KAFKA_PARTITIONS: "1", KAFKA_TOPIC_PREFIX: `test-obs-${randomUUID().slice(0, 8)}.` }
      : { EVENT_BUS: "embedded", EVENT_BUS_DATABASE_URL: eventsDb.url };
    const common = {
      ...bus,
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      // Export within a fraction of a second rather than the default 5 s.
      OTEL_BSP_SCHEDULE_DELAY: "100",
    };
    const [callerPort, calleePort] = [await freePort(), await freePort()];
    callerUrl = `http://127.0.0.1:${callerPort}`;
    calleeUrl = `http://127.0.0.1:${calleePort}`;
    callee = start("fixture-service.ts", { ...common, FIXTURE_ROLE: "callee", PORT: String(calleePort), DATABASE_URL: calleeDb.url });
    caller = start("fixture-service.ts", {
      ...common,
      FIXTURE_ROLE: "caller",
      PORT: String(callerPort),
      DATABASE_URL: callerDb.url,
      CALLEE_URL: calleeUrl,
    });
    await waitFor("the callee to subscribe", () => callee.lines.find((l) => l.msg === "ready for events"), 90_000);
    await waitFor("the caller to listen", () => caller.lines.find((l) => l.msg === "obs-caller listening"), 90_000);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([caller?.stop(), callee?.stop()]);
    await receiver?.close();
    for (const database of databases) await database.drop();
  }, 60_000);

  async function hop(): Promise<{ eventId: string; calleeOk: boolean }> {
    const response = await fetch(`${callerUrl}/hop`);
    expect(response.status).toBe(200);
    return (await response.json()) as { eventId: string; calleeOk: boolean };
  }

  it("one request yields one trace: the caller's spans, the callee's RPC span as a child of the caller's call, and the event's consumption", async () => {
    const { eventId } = await hop();
    const consumed = await waitFor("the callee to consume the event", () =>
      receiver.spans.find((s) => s.kind === SpanKinds.consumer && s.attributes["messaging.message.id"] === eventId),
    );
    const traceId = consumed.traceId;
    const inTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    const byId = (spanId: string) => inTrace().find((s) => s.spanId === spanId);

    const hopSpan = await waitFor("the caller's request span", () =>
      inTrace().find((s) => s.service === "obs-caller" && s.kind === SpanKinds.server && s.name === "GET /hop"),
    );
    expect(hopSpan.parentSpanId).toBe("");

    // Over Connect: the callee's server span is the child of a client span of the caller.
    const check = await waitFor("the callee's RPC span", () =>
      inTrace().find((s) => s.service === "obs-callee" && s.kind === SpanKinds.server && s.name === "transcribe.health.v1.HealthService/Check"),
    );
    // gRPC over HTTP/2 (decision 0023): the http instrumentation does not see HTTP/2
    // sessions, so the caller's RPC client span, whose traceparent the call carries, is the parent.
    const rpcCall = byId(check.parentSpanId);
    expect(rpcCall, "the callee's span has a parent among the caller's spans").toBeDefined();
    expect(rpcCall).toMatchObject({ service: "obs-caller", kind: SpanKinds.client, name: "transcribe.health.v1.HealthService/Check" });
    expect(rpcCall!.parentSpanId).toBe(hopSpan.spanId);
    // The callee's readiness check queries its database inside the call (pg instrumentation, via the preload).
    const query = await waitFor("a database span in the callee", () =>
      inTrace().find((s) => s.service === "obs-callee" && (s.attributes["db.system.name"] ?? s.attributes["db.system"]) === "postgresql"),
    );
    expect(query.traceId).toBe(hopSpan.traceId);

    // Through the outbox: written in the request, published later by the relay, consumed in the callee.
    const publish = byId(consumed.parentSpanId) ?? (await waitFor("the publish span", () => byId(consumed.parentSpanId)));
    expect(publish).toMatchObject({ service: "obs-caller", kind: SpanKinds.producer, name: "publish media.files" });
    expect(publish.parentSpanId).toBe(hopSpan.spanId);
    expect(consumed).toMatchObject({ service: "obs-callee", name: "process media.files" });
    expect(consumed.attributes["messaging.consumer.group.name"]).toBe("obs-callee");
  });

  it("log lines written inside a span carry its trace id, the request id and the service", async () => {
    const { eventId } = await hop();
    const done = await waitFor("the caller's log line", () => caller.lines.find((l) => l.msg === "hop done" && l.eventId === eventId));
    const consumed = await waitFor("the callee's log line", () => callee.lines.find((l) => l.msg === "event consumed" && l.eventId === eventId));
    expect(done.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(done.span_id).toMatch(/^[0-9a-f]{16}$/);
    expect(done.service).toBe("obs-caller");
    expect(done.reqId).toEqual(expect.any(String));
    // The consumer's line continues the request's trace, in another process, after the outbox.
    expect(consumed.trace_id).toBe(done.trace_id);
    expect(consumed.service).toBe("obs-callee");
    // Fastify's request logger has reqId already: it is not written twice.
    const completed = caller.lines.find((l) => l.msg === "request completed" && l.reqId === done.reqId);
    expect(completed).toBeDefined();
    const lineTexts = caller.lines.filter((l) => l.reqId === done.reqId).map((l) => JSON.stringify(l));
    expect(lineTexts.length).toBeGreaterThan(0);
    const spans = receiver.spans.filter((s) => s.traceId === done.trace_id);
    expect(spans.some((s: ReceivedSpan) => s.service === "obs-caller" && s.name === "GET /hop")).toBe(true);
  });

  it("GET /metrics answers Prometheus text whose counts follow the requests", async () => {
    const before = await metrics(callerUrl);
    const labels = { service: "obs-caller", method: "GET", route: "/hop", status_code: "200" };
    const hopsBefore = sample(before, "http_server_request_duration_seconds_count", labels);
    const callsBefore = sample(before, "rpc_client_duration_seconds_count", {
      rpc_service: "transcribe.health.v1.HealthService",
      rpc_method: "Check",
      rpc_code: "ok",
    });
    const { eventId } = await hop();
    await hop();
    const after = await metrics(callerUrl);
    expect(sample(after, "http_server_request_duration_seconds_count", labels)).toBe(hopsBefore + 2);
    expect(
      sample(after, "rpc_client_duration_seconds_count", { rpc_service: "transcribe.health.v1.HealthService", rpc_method: "Check", rpc_code: "ok" }),
    ).toBe(callsBefore + 2);
    // Default process metrics, with the service label.
    expect(after).toMatch(/^process_cpu_user_seconds_total\{service="obs-caller"\} /m);
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds\{service="obs-caller"\} /m);

    await waitFor("the callee to consume the event", () => callee.lines.find((l) => l.msg === "event consumed" && l.eventId === eventId));
    const published = sample(await metrics(callerUrl), "events_published_total", { topic: "media.files" });
    expect(published).toBeGreaterThanOrEqual(3);
    expect(await metrics(callerUrl)).toMatch(/^outbox_lag_seconds_count\{service="obs-caller"\} [1-9]/m);
    const calleeText = await waitFor("the callee's consumption counts", async () => {
      const text = await metrics(calleeUrl);
      return sample(text, "events_consumed_total", { consumer: "obs-callee", topic: "media.files", outcome: "ok" }) >= 3 ? text : undefined;
    });
    expect(sample(calleeText, "rpc_server_duration_seconds_count", { rpc_method: "Check", rpc_code: "ok" })).toBeGreaterThanOrEqual(3);
    expect(sample(calleeText, "event_handler_duration_seconds_count", { consumer: "obs-callee", topic: "media.files" })).toBeGreaterThanOrEqual(3);
  });

  it("probes and scrapes are not traced", async () => {
    await fetch(`${callerUrl}/healthz`);
    await fetch(`${callerUrl}/metrics`);
    const before = receiver.spans.length;
    await hop();
    await waitFor("the next request's spans", () => (receiver.spans.length > before ? true : undefined));
    expect(receiver.spans.filter((s) => /\/(healthz|readyz|metrics)\b/.test(s.name))).toEqual([]);
  });
});

describe("the telemetry preload", () => {
  function probe(env: Record<string, string | undefined>): Promise<Record<string, boolean>> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...preload, path.join(import.meta.dirname, "preload-probe.ts")], {
        cwd: repoRoot,
        env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: undefined, ...env },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (chunk) => (out += chunk));
      child.on("error", reject);
      child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`probe exited ${code}`))));
    });
  }

  it("patches pg, kafkajs and http before the entry point loads when an endpoint is set", async () => {
    expect(await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" })).toEqual({ pg: true, kafkajs: true, httpServer: true, httpClient: true });
  });

  it("does nothing without an endpoint", async () => {
    const untouched = { pg: false, kafkajs: false, httpServer: false, httpClient: false };
    expect(await probe({})).toEqual(untouched);
    expect(await probe({ OTEL_EXPORTER_OTLP_ENDPOINT: "" })).toEqual(untouched);
  });
});
