import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getHealth } from "../../../../deploy/embedded/test/stack.js";
import type { RouteEntry } from "../../src/http/route-table.js";
import { alive, type Product, signUp, startProduct, toneWav, upload, type User } from "./product.js";
import { bffRoutes } from "./route-tables.js";
import { type Components, hostileUrl, type JsonSchema, junkJson, nastyString, queryValueFor, valueFor } from "./schema-arbitraries.js";

/** Requests in one run (docs/security.md: at least 10,000); FUZZ_SEED replays a run. */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const CONCURRENCY = 12;

interface Operation {
  parameters?: Array<{ in: string; name: string; schema: JsonSchema; required?: boolean }>;
  requestBody?: { content?: Record<string, { schema: JsonSchema }> };
}

interface FuzzRequest {
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** Path segments a careless router or handler trips over; sent as they are (not encoded). */
const rawSegments = ["%", "%zz", "%00", "..", "%2e%2e", "a%2Fb", "%C0%AE", "%ff%fe", ".", "~", "%u0000", "x".repeat(3000)];

/** Percent-encodes a path segment as a browser would (a lone surrogate becomes U+FFFD). */
const encodeSegment = (value: string) => encodeURIComponent(value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD"));

/** Cookie headers: the signed-in user's (mostly), none, garbage, and a forged session token. */
function cookieArbitrary(user: User, apiKey?: string): fc.Arbitrary<Record<string, string>> {
  return fc.oneof(
    ...(apiKey ? [{ arbitrary: fc.constant({ authorization: `Bearer ${apiKey}` }), weight: 3 }] : []),
    { arbitrary: fc.constant({ authorization: "Bearer tsk_forgedforgedforgedforgedforgedforgedforgedforgedforged" }), weight: 1 },
    { arbitrary: fc.constant({ cookie: user.browser.cookieHeader() }), weight: 8 },
    { arbitrary: fc.constant({}), weight: 1 },
    { arbitrary: fc.string({ unit: "binary-ascii", maxLength: 200 }).map((v) => ({ cookie: `better-auth.session_token=${encodeURIComponent(v)}` })), weight: 1 },
    { arbitrary: fc.constant({ authorization: "Bearer not-a-token" }), weight: 1 },
  );
}

/** How the body travels: JSON (mostly), broken JSON, other content types, too large. */
interface Encoded {
  body?: string | Buffer;
  headers: Record<string, string>;
}

function encode(value: unknown): fc.Arbitrary<Encoded> {
  const json = JSON.stringify(value) ?? "null";
  const as = (contentType: string, body: string | Buffer): Encoded => ({ body, headers: { "content-type": contentType } });
  const weighted = (arbitrary: fc.Arbitrary<Encoded>, weight: number) => ({ arbitrary, weight });
  return fc.oneof(
    weighted(fc.constant(as("application/json", json)), 12),
    weighted(fc.constant<Encoded>({ headers: {} }), 1),
    weighted(fc.constant(as("application/json", json.slice(0, Math.max(1, json.length - 1)))), 1),
    weighted(fc.constantFrom("{", '{"a":', "[1,2", "\u0000", '{"a":1}{"b":2}', '{"a":1,"a":2}').map((body) => as("application/json", body)), 1),
    weighted(fc.constant(as("text/plain", json)), 1),
    weighted(fc.constant(as("application/x-www-form-urlencoded", "a=1&b=2")), 1),
    weighted(fc.constant(as("multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--\r\n')), 1),
    // A form with a file part: the upload routes (/v1/audio/*, /api/v1/jobs) take a slot and write it to /tmp.
    weighted(
      fc.constant(as("multipart/form-data; boundary=x", `--x\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-1\r\n--x\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF${"\u0000".repeat(64)}\r\n--x--\r\n`)),
      1,
    ),
    weighted(fc.constant(as("application/xml", "<a>1</a>")), 1),
    weighted(fc.constant(as("application/json; charset=utf-16", json)), 1),
    weighted(fc.constant(as("application/json", Buffer.alloc(1024 * 1024 + 10, "a"))), 1),
  );
}

/**
 * Requests for one route of the BFF: path parameters, query and body drawn from the
 * route's schemas in the OpenAPI document (valid, at their limits, wrong types, nasty
 * strings), real ids of the signed-in user, junk path segments and encodings.
 */
function requestsFor(route: RouteEntry, doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Components } }, user: User, ids: string[], apiKey?: string): fc.Arbitrary<FuzzRequest> {
  const components = doc.components.schemas;
  const operation = doc.paths[route.url.replace(/:([A-Za-z_]+)/g, "{$1}")]?.[route.method.toLowerCase()] ?? {};
  const parameters = operation.parameters ?? [];
  const segment = fc.oneof(
    { arbitrary: fc.constantFrom(...ids), weight: 3 },
    { arbitrary: nastyString.map((s) => encodeSegment(s.slice(0, 2000)) || "x"), weight: 3 },
    { arbitrary: fc.string({ minLength: 1, maxLength: 64 }).map(encodeSegment), weight: 2 },
    { arbitrary: fc.constantFrom(...rawSegments), weight: 1 },
  );
  const pathArbitrary = fc.tuple(...route.url.split("/").map((part) => (part.startsWith(":") ? segment : part === "*" ? fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join("/")) : fc.constant(part)))).map((parts) => parts.join("/"));
  const queryParameters = parameters.filter((p) => p.in === "query");
  const queryArbitrary = fc.oneof(
    { arbitrary: fc.record(Object.fromEntries(queryParameters.map((p) => [p.name, queryValueFor(p.schema, components)])), { requiredKeys: [] }), weight: 4 },
    { arbitrary: fc.dictionary(fc.constantFrom("limit", "offset", "q", "status", "tz", "__proto__", "constructor[prototype][x]", "a[]", "x"), nastyString.map((s) => s.slice(0, 3000)), { maxKeys: 4 }), weight: 1 },
  ).map((query) => {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) if (value !== undefined) search.append(key, String(value));
    const text = search.toString();
    return text ? `?${text}` : "";
  });
  const bodySchema = operation.requestBody?.content?.["application/json"]?.schema;
  const bodyValue: fc.Arbitrary<unknown> = bodySchema ? valueFor(bodySchema, components, { url: hostileUrl }) : junkJson;
  const withBody = route.method !== "GET" && route.method !== "HEAD";
  const encoded: fc.Arbitrary<Encoded> = withBody ? bodyValue.chain(encode) : fc.constant({ headers: {} });
  const extraHeaders = fc.oneof(
    { arbitrary: fc.constant({}), weight: 8 },
    { arbitrary: fc.constant({ "if-none-match": 'W/"x"' }), weight: 1 },
    { arbitrary: fc.constant({ range: "bytes=0-1" }), weight: 1 },
    { arbitrary: fc.constant({ origin: "https://evil.example" }), weight: 1 },
    { arbitrary: fc.constant({ "accept-encoding": "gzip, br" }), weight: 1 },
  );
  return fc.record({ path: pathArbitrary, query: queryArbitrary, encoded, cookie: cookieArbitrary(user, apiKey), extra: extraHeaders }).map(({ path, query, encoded, cookie, extra }) => ({
    route: `${route.method} ${route.url}`,
    method: route.method,
    path: `${path}${query}`,
    headers: { ...encoded.headers, ...cookie, ...extra },
    ...(encoded.body === undefined ? {} : { body: encoded.body }),
  }));
}

interface Finding {
  request: string;
  problem: string;
}

/** Sends one request; returns what is wrong with the answer, if anything. */
async function check(baseUrl: string, request: FuzzRequest): Promise<string | undefined> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers: request.headers, body: request.body, redirect: "manual" });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    // Past the body limit the server may answer 413 and close before the whole body is sent.
    if (Buffer.isBuffer(request.body) && (cause?.code === "EPIPE" || cause?.code === "ECONNRESET" || cause?.code === "UND_ERR_SOCKET")) return undefined;
    return `no answer: ${(error as Error).message} ${cause?.code ?? ""} ${cause?.message ?? ""}`;
  }
  const text = await response.text();
  if (response.status >= 500) return `${response.status}: ${text.slice(0, 300)}`;
  if (response.status < 400 || request.method === "HEAD") return undefined;
  if (!(response.headers.get("content-type") ?? "").includes("application/json")) return `${response.status} without a JSON body: ${text.slice(0, 200)}`;
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code !== "string" || typeof body.error?.message !== "string") return `${response.status} with another error shape: ${text.slice(0, 200)}`;
  } catch {
    return `${response.status} with a body that is not JSON: ${text.slice(0, 200)}`;
  }
  return undefined;
}

/**
 * docs/security.md's fuzzing: at least 10,000 requests, generated by fast-check from the OpenAPI
 * document's schemas, spread over every /api route of the BFF, against the real product
 * with a signed-in user. No answer may be a 5xx, every refusal carries the JSON error body,
 * and no process may crash (the supervisor would have restarted it under a new pid).
 */
describe("fuzzing every /api route", () => {
  let product: Product;
  let user: User;
  let routes: RouteEntry[];
  let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Components } };
  let ids: string[];
  let apiKey: string;

  beforeAll(async () => {
    [routes, product] = await Promise.all([bffRoutes().then((all) => all.filter((r) => r.url.startsWith("/api/") || r.url.startsWith("/v1/"))), startProduct({ FREE_TRIAL_MINUTES: "2" })]);
    user = await signUp(product, "fuzzer");
    // The developer API's callers send a key instead of the cookie.
    const created = await fetch(`${product.baseUrl}/api/v1/api-keys`, {
      method: "POST",
      headers: { cookie: user.browser.cookieHeader(), origin: product.baseUrl, "content-type": "application/json" },
      body: JSON.stringify({ name: "fuzzer" }),
    });
    expect(created.status).toBe(201);
    apiKey = ((await created.json()) as { key: string }).key;
    doc = (await (await fetch(`${product.baseUrl}/api/v1/openapi.json`)).json()) as typeof doc;
    const file = await upload(user, toneWav(1), 1);
    const started = await fetch(`${product.baseUrl}/api/v1/transcriptions`, {
      method: "POST",
      headers: { cookie: user.browser.cookieHeader(), "content-type": "application/json" },
      body: JSON.stringify({ file_id: file, settings: { model: "whisper-tiny.en", language: "en" } }),
    });
    const transcription = ((await started.json()) as { transcription_id?: string }).transcription_id;
    ids = [file, ...(transcription ? [transcription] : []), "00000000-0000-0000-0000-000000000000", "blog-post", "media"];
  }, 300_000);

  afterAll(async () => {
    await product?.stop();
  });

  it(`answers ${REQUESTS} generated requests without a 5xx, each refusal with the JSON error body, and no process crashes`, { timeout: 600_000 }, async () => {
    const pidsBefore = await product.pids();
    const perRoute = Math.ceil(REQUESTS / routes.length);
    const requests = routes.flatMap((route, index) => fc.sample(requestsFor(route, doc, user, ids, apiKey), { numRuns: perRoute, seed: SEED + index }));
    // Interleaved, so a slow route does not run alone and one route's state changes meet the others'.
    const order = fc.sample(fc.shuffledSubarray(requests.map((_, i) => i), { minLength: requests.length, maxLength: requests.length }), { numRuns: 1, seed: SEED })[0]!;
    const findings: Finding[] = [];
    const seenKinds = new Set<string>();
    let failures = 0;
    const counts = new Map<string, number>();
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < order.length) {
          const request = requests[order[next++]!]!;
          counts.set(request.route, (counts.get(request.route) ?? 0) + 1);
          const problem = await check(product.baseUrl, request);
          if (problem) failures += 1;
          // One example per route and kind of problem, so every kind shows in the report.
          const kind = problem && `${request.route} ${problem.replace(/\d{3,}/g, "N").slice(0, 60)}`;
          if (kind && !seenKinds.has(kind) && findings.length < 40) {
            seenKinds.add(kind);
            const body = request.body === undefined ? "" : Buffer.isBuffer(request.body) ? ` <${request.body.length} bytes>` : ` ${request.body.slice(0, 200)}`;
            findings.push({ request: `${request.method} ${request.path.slice(0, 300)} ${JSON.stringify(request.headers).slice(0, 200)}${body}`, problem });
          }
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    console.log(`[fuzz] ${requests.length} requests over ${routes.length} routes in ${seconds.toFixed(1)} s (${(requests.length / seconds).toFixed(0)}/s), ${failures} failed, seed ${SEED}`);

    expect(requests.length).toBeGreaterThanOrEqual(REQUESTS);
    expect([...counts.keys()].sort()).toEqual(routes.map((r) => `${r.method} ${r.url}`).sort());
    expect(findings, `replay with FUZZ_SEED=${SEED}:\n${findings.map((f) => `${f.request}\n  -> ${f.problem}`).join("\n")}`).toEqual([]);

    const pidsAfter = await product.pids();
    expect(pidsAfter, "a service process was restarted (it crashed)").toEqual(pidsBefore);
    for (const [name, pid] of Object.entries(pidsAfter)) expect(alive(pid), `${name} (pid ${pid}) is alive`).toBe(true);
    expect((await getHealth(product.baseUrl))?.status).toBe(200);
  });
});
