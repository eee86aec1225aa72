import { createHmac } from "node:crypto";
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import OpenAI from "openai";
import { createReadStream } from "node:fs";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silenceWav } from "@transcribe/media/testing/voices";
import { concatWavs, engineUnavailable, synthesize } from "../../../transcription/test/helpers.js";
import { type DeveloperStack, startDeveloperStack } from "./stack.js";

const SCRIPT = "The committee met on Tuesday morning to review the budget for the new library.";

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback: records every request, answers with the next queued status (then 200). */
async function receiver() {
  const received: Received[] = [];
  const statuses: number[] = [];
  let redirectTo: string | undefined;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      if (redirectTo) return res.writeHead(302, { location: redirectTo }).end();
      res.writeHead(statuses.shift() ?? 200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    answerNext: (...codes: number[]) => statuses.push(...codes),
    redirect: (to: string) => (redirectTo = to),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The algorithm docs/api.md documents, written out: base64(HMAC-SHA256(secret, id.timestamp.body)). */
function verifyByHand(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const signed = `${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`;
  const expected = createHmac("sha256", key).update(signed).digest("base64");
  return String(r.headers["webhook-signature"]).split(" ").some((s) => s === `v1,${expected}`);
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A name the test's resolver answers: public at registration, private afterwards (DNS rebinding). */
const REBINDING_HOST = "rebinding.hooks.test";
let rebindingAnswers = 0;

describe.skipIf(engineUnavailable)("user webhooks: signed, retried, logged, and only to allowed addresses", () => {
  let stack: DeveloperStack;
  let alice: string;
  let key: string;
  let hooks: Awaited<ReturnType<typeof receiver>>;
  let secret: string;
  let webhookId: string;
  let speech: string;

  const session = () => ({ cookie: alice, origin: stack.origin });
  const api = (headers: Record<string, string>, method: string, url: string, body?: unknown) =>
    fetch(`${stack.origin}${url}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  beforeAll(async () => {
    stack = await startDeveloperStack({
      webhooks: {
        env: { WEBHOOKS_ALLOW_CIDRS: "127.0.0.0/8", WEBHOOK_RETRY_BASE_SECONDS: "1", WEBHOOK_POLL_MS: "200", WEBHOOK_TIMEOUT_MS: "5000" },
        resolver: async (hostname) => {
          if (hostname !== REBINDING_HOST) throw new Error("unknown host");
          rebindingAnswers++;
          return rebindingAnswers === 1 ? [{ address: "93.184.216.34", family: 4 }] : [{ address: "10.0.0.7", family: 4 }];
        },
      },
    });
    alice = await stack.signIn("alice-hooks@example.com");
    key = ((await (await api(session(), "POST", "/api/v1/api-keys", { name: "hooks" })).json()) as { key: string }).key;
    hooks = await receiver();
    speech = (await synthesize(SCRIPT)).path;
  }, 240_000);

  afterAll(async () => {
    await hooks?.close();
    await stack?.close();
  });

  it("refuses private and loopback targets that are not allow-listed at registration (the image proxy's vectors)", async () => {
    for (const url of [
      "http://10.0.0.5/hooks",
      "http://192.168.1.20/hooks",
      "http://169.254.169.254/latest/meta-data/",
      "http://[::1]:8080/hooks",
      "http://[::ffff:10.0.0.1]/hooks",
      "http://[fd00:ec2::254]/",
      "http://0.0.0.0:8080/",
      "http://localhost:8080/hooks",
      "http://100.100.100.200/",
      "ftp://127.0.0.1/hooks",
      "http://user:pass@127.0.0.1/hooks",
    ]) {
      const response = await api(session(), "POST", "/api/v1/webhooks", { url, events: ["transcription.completed"] });
      expect(response.status, url).toBe(400);
    }
    expect(((await (await api(session(), "GET", "/api/v1/webhooks")).json()) as { webhooks: unknown[] }).webhooks).toEqual([]);
  });

  it("a key cannot manage webhooks", async () => {
    expect((await api({ authorization: `Bearer ${key}` }, "GET", "/api/v1/webhooks")).status).toBe(403);
    expect((await api({ authorization: `Bearer ${key}` }, "POST", "/api/v1/webhooks", { url: hooks.url, events: ["transcription.completed"] })).status).toBe(403);
  });

  it("delivers exactly one signed transcription.completed per job, again after a 500, and resends on request", async () => {
    const created = await api(session(), "POST", "/api/v1/webhooks", { url: hooks.url, events: ["transcription.completed", "transcription.failed"] });
    expect(created.status).toBe(201);
    const endpoint = (await created.json()) as { id: string; url: string; events: string[]; secret: string };
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    secret = endpoint.secret;
    webhookId = endpoint.id;
    const listed = (await (await api(session(), "GET", "/api/v1/webhooks")).json()) as { webhooks: Array<Record<string, unknown>> };
    expect(listed.webhooks).toEqual([{ id: endpoint.id, url: hooks.url, events: ["transcription.completed", "transcription.failed"], created_at: expect.any(String) }]);
    expect(JSON.stringify(listed)).not.toContain(secret);

    hooks.answerNext(500);
    const form = new FormData();
    form.set("file", new Blob([await readFile(speech)], { type: "audio/wav" }), "speech.wav");
    form.set("model", "whisper-tiny.en");
    form.set("language", "en");
    const job = await fetch(`${stack.origin}/api/v1/jobs`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
    expect(job.status).toBe(202);
    const { transcription_id } = (await job.json()) as { transcription_id: string };

    await until("two attempts", () => (hooks.received.length >= 2 ? true : undefined), 180_000);
    await new Promise((r) => setTimeout(r, 3_000));
    expect(hooks.received).toHaveLength(2);
    const [first, second] = hooks.received;
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    for (const r of hooks.received) {
      expect(verifyByHand(secret, r)).toBe(true);
      expect(new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).toMatchObject({ type: "transcription.completed" });
      expect(JSON.parse(r.body)).toMatchObject({ type: "transcription.completed", data: { transcription_id, status: "completed" } });
    }
    expect(verifyByHand(`whsec_${Buffer.from("another secret, not theirs").toString("base64")}`, second!)).toBe(false);

    const log = (await (await api(session(), "GET", `/api/v1/webhooks/${webhookId}/deliveries`)).json()) as {
      deliveries: Array<{ id: string; status: string; attempts: number; last_status_code: number; transcription_id: string }>;
    };
    expect(log.deliveries).toHaveLength(1);
    expect(log.deliveries[0]).toMatchObject({ status: "succeeded", attempts: 2, last_status_code: 200, transcription_id, id: first!.headers["webhook-id"] });

    const resent = await api(session(), "POST", `/api/v1/webhooks/${webhookId}/deliveries/${log.deliveries[0]!.id}/resend`);
    expect(resent.status).toBe(202);
    await until("the resend", () => (hooks.received.length >= 3 ? true : undefined), 30_000);
    expect(hooks.received[2]!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(verifyByHand(secret, hooks.received[2]!)).toBe(true);
    expect((await api(session(), "POST", `/api/v1/webhooks/${webhookId}/deliveries/00000000-0000-4000-8000-000000000000/resend`)).status).toBe(404);
  }, 300_000);

  it("at delivery, refuses a redirect and a name that now resolves to a private address", async () => {
    const other = await receiver();
    hooks.redirect(other.url);
    const before = hooks.received.length;
    const rebinding = await api(session(), "POST", "/api/v1/webhooks", { url: `http://${REBINDING_HOST}:9/hooks`, events: ["transcription.completed"] });
    expect(rebinding.status).toBe(201);
    const rebindingId = ((await rebinding.json()) as { id: string }).id;

    const form = new FormData();
    form.set("file", new Blob([await readFile(speech)], { type: "audio/wav" }), "again.wav");
    form.set("model", "whisper-tiny.en");
    form.set("language", "en");
    expect((await fetch(`${stack.origin}/api/v1/jobs`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form })).status).toBe(202);

    const redirected = await until(
      "the redirected attempt to be logged",
      async () => {
        const log = (await (await api(session(), "GET", `/api/v1/webhooks/${webhookId}/deliveries`)).json()) as { deliveries: Array<{ attempts: number; last_status_code: number | null; last_error: string | null }> };
        const newest = log.deliveries[0];
        return log.deliveries.length === 2 && newest && newest.attempts >= 1 ? newest : undefined;
      },
      180_000,
    );
    expect(redirected.last_status_code).toBe(302);
    expect(redirected.last_error).toContain("Redirects are not followed");
    expect(hooks.received.length).toBeGreaterThan(before);
    expect(other.received).toHaveLength(0);

    const refused = await until(
      "the rebinding attempt to be logged",
      async () => {
        const log = (await (await api(session(), "GET", `/api/v1/webhooks/${rebindingId}/deliveries`)).json()) as { deliveries: Array<{ attempts: number; last_status_code: number | null; last_error: string | null; status: string }> };
        return log.deliveries[0] && log.deliveries[0].attempts >= 1 ? log.deliveries[0] : undefined;
      },
      60_000,
    );
    expect(refused.last_status_code).toBeNull();
    expect(refused.last_error).toContain("private network");
    expect(refused.status).toBe("pending");
    hooks.redirect("");
    await other.close();
    expect((await api(session(), "DELETE", `/api/v1/webhooks/${rebindingId}`)).status).toBe(204);
  }, 300_000);

  it("a 10-minute file: the sync endpoint answers use_async_api, the async job completes and calls the webhook", async () => {
    const dir = path.dirname(speech);
    // Speech at both ends of ten minutes, silence between: the file is as long (size,
    // limits, windows) as ten minutes of talk, while the VAD spares the 2-core CI machine
    // the decoding of two ten-minute jobs (the sync one goes on in the background too).
    const one = await synthesize(SCRIPT, { dir });
    const silence = silenceWav(path.join(dir, "silence.wav"), Math.ceil(600 - 2 * one.duration) + 1);
    const long = concatWavs([one.path, silence, one.path], path.join(dir, "ten-minutes.wav"));
    expect(long.duration).toBeGreaterThanOrEqual(600);

    const impatient = await stack.extraBff({ OPENAI_SYNC_WAIT_SECONDS: "1", WEBHOOKS_URL: "http://127.0.0.1:9" });
    const client = new OpenAI({ apiKey: key, baseURL: `${impatient}/v1`, maxRetries: 0 });
    const started = Date.now();
    const error = (await client.audio.transcriptions.create({ file: createReadStream(long.path), model: "whisper-tiny.en", language: "en" }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.code).toBe("use_async_api");

    const before = hooks.received.length;
    const form = new FormData();
    form.set("file", new Blob([await readFile(long.path)], { type: "audio/wav" }), "ten-minutes.wav");
    form.set("model", "whisper-tiny.en");
    form.set("language", "en");
    const job = await fetch(`${stack.origin}/api/v1/jobs`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
    expect(job.status).toBe(202);
    const { transcription_id } = (await job.json()) as { transcription_id: string };
    const delivered = await until(
      "the webhook for the 10-minute job",
      () => hooks.received.slice(before).find((r) => JSON.parse(r.body).data.transcription_id === transcription_id),
      900_000,
    );
    expect(verifyByHand(secret, delivered)).toBe(true);
    const detail = (await (await api({ authorization: `Bearer ${key}` }, "GET", `/api/v1/transcriptions/${transcription_id}`)).json()) as {
      status: string;
      result: { duration: number; segments: Array<{ start: number; text: string }> };
    };
    expect(detail.status).toBe("completed");
    expect(detail.result.duration).toBeGreaterThan(590);
    // Both ends were transcribed: the first window's words and the last one's.
    const said = (from: number, to: number) => detail.result.segments.filter((s) => s.start >= from && s.start < to).map((s) => s.text).join(" ").toLowerCase();
    expect(said(0, one.duration)).toContain("library");
    expect(said(long.duration - one.duration - 1, long.duration)).toContain("library");
  }, 1_200_000);
});
