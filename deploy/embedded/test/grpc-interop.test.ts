import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import http2 from "node:http2";
import path from "node:path";
import { espeakNg, ffmpegPath } from "@transcribe/media/testing/tools";
import { skipWhen } from "@transcribe/platform/testing";
import { equals, fromBinary, type DescMessage, type DescService, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { createServiceClient, createTokenSigner, generateServiceKeys, type JWK } from "@transcribe/platform";
import { AuthService } from "@transcribe/proto/auth/v1/auth";
import { BillingService } from "@transcribe/proto/billing/v1/billing";
import { BlogService } from "@transcribe/proto/blog/v1/blog";
import { ExportFormat, ExportService } from "@transcribe/proto/export/v1/export";
import { HealthService } from "@transcribe/proto/health/v1/health";
import { MediaService } from "@transcribe/proto/media/v1/media";
import { NotifierService } from "@transcribe/proto/notifier/v1/notifier";
import { WebhooksService } from "@transcribe/proto/webhooks/v1/webhooks";
import { TranscriptionService } from "@transcribe/proto/transcription/v1/transcription";
import { LiveTranscriptionService } from "@transcribe/proto/live/v1/live";
import { execFileSync } from "node:child_process";
import { SignJWT, importJWK } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../src/config.js";
import { processes } from "../src/services.js";
import { getHealth, newStackDataDir, ownStackEnv, type RunningStack, startStack, waitFor } from "./stack.js";

/**
 * The services as another team's gRPC client sees them (decision 0023): @grpc/grpc-js with the
 * .proto files loaded by @grpc/proto-loader, against `npm start`'s processes. Answers are
 * compared with the Connect client's by decoding both into the generated message types.
 */

const protoDir = path.join(repoRoot, "proto");
const protoFiles = [
  "grpc/health/v1/health.proto",
  ...["auth", "media", "transcription", "billing", "export", "blog", "notifier", "webhooks", "health", "live"].map(
    (name) => `transcribe/${name}/v1/${name}.proto`,
  ),
];
const definitions = protoLoader.loadSync(protoFiles, { includeDirs: [protoDir], defaults: true, longs: String, enums: String });
const GenericClient = grpc.makeGenericClientConstructor({}, "");

type Metadata = Record<string, string>;

interface GrpcAnswer {
  bytes?: Buffer;
  error?: grpc.ServiceError;
}

/** One unary call through grpc-js, with the method's proto-loader serializers; the answer as protobuf bytes. */
function grpcCall(address: string, service: DescService, method: string, request: object, metadata: Metadata = {}, deadline?: Date): Promise<GrpcAnswer> {
  const definition = (definitions[service.typeName] as grpc.ServiceDefinition | undefined)?.[method];
  if (!definition) throw new Error(`proto-loader has no ${service.typeName}/${method}`);
  const client = new GenericClient(address, grpc.credentials.createInsecure());
  const meta = new grpc.Metadata();
  for (const [key, value] of Object.entries(metadata)) meta.set(key, value);
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      definition.path,
      definition.requestSerialize,
      (bytes: Buffer) => bytes,
      request,
      meta,
      { deadline: deadline ?? Date.now() + 15_000 },
      (error: grpc.ServiceError | null, bytes?: Buffer) => {
        client.close();
        resolve(error ? { error } : { bytes: bytes! });
      },
    );
  });
}

/** A bidirectional stream through grpc-js: every request written, then the answers (plain objects) or the error. */
function grpcBidi(
  address: string,
  service: DescService,
  method: string,
  requests: object[],
  metadata: Metadata,
  options: { deadline?: Date; cancelAfterFirst?: boolean; keepOpen?: boolean } = {},
): Promise<{ answers: Array<Record<string, unknown>>; error?: grpc.ServiceError }> {
  const definition = (definitions[service.typeName] as grpc.ServiceDefinition | undefined)?.[method];
  if (!definition) throw new Error(`proto-loader has no ${service.typeName}/${method}`);
  const client = new GenericClient(address, grpc.credentials.createInsecure());
  const meta = new grpc.Metadata();
  for (const [key, value] of Object.entries(metadata)) meta.set(key, value);
  const call = client.makeBidiStreamRequest(definition.path, definition.requestSerialize, definition.responseDeserialize, meta, {
    deadline: options.deadline ?? Date.now() + 120_000,
  });
  const answers: Array<Record<string, unknown>> = [];
  return new Promise((resolve) => {
    call.on("data", (answer: Record<string, unknown>) => {
      answers.push(answer);
      if (options.cancelAfterFirst) call.cancel();
    });
    call.on("error", (error: grpc.ServiceError) => {
      client.close();
      resolve({ answers, error });
    });
    call.on("end", () => {
      client.close();
      resolve({ answers });
    });
    for (const request of requests) call.write(request);
    if (!options.keepOpen) call.end();
  });
}

function decode<S extends DescMessage>(schema: S, answer: GrpcAnswer): MessageShape<S> {
  if (answer.error) throw new Error(`grpc-js call failed: ${answer.error.code} ${answer.error.details}`);
  return fromBinary(schema, answer.bytes!);
}

const expectedServices = processes.filter((p) => p.name !== "bff");

describe("gRPC over HTTP/2: grpc-js and grpcurl against the embedded stack", () => {
  let dataDir: string;
  let env: Record<string, string>;
  let stack: RunningStack | undefined;
  let keys: Record<string, JWK>;
  let address: (name: string) => string;
  let bearer: (service: DescService, userId?: string) => Promise<Metadata>;

  beforeAll(async () => {
    dataDir = await newStackDataDir("grpc-test-");
    env = { ...(await ownStackEnv(dataDir)), SKIP_WEB_BUILD: "true", RESTART_DELAY_MS: "1500" };
    stack = startStack(env);
    await waitFor(() => getHealth(stack!.baseUrl), (h) => h?.status === 200, 150_000, "every service healthy").catch((error) => {
      throw new Error(`${(error as Error).message}\n--- launcher output ---\n${stack!.output().slice(-4000)}`);
    });
    keys = JSON.parse(readFileSync(path.join(dataDir, "service-keys.json"), "utf8")) as Record<string, JWK>;
    address = (name) => {
      const spec = processes.find((p) => p.name === name)!;
      return `127.0.0.1:${Number(env.SERVICE_PORT_BASE) + (spec.portOffset as number)}`;
    };
    const bff = createTokenSigner(keys.bff!);
    bearer = async (service, userId) => ({ authorization: `Bearer ${await bff.token(service.typeName, userId)}` });
  });

  afterAll(async () => {
    if (stack) await stack.interrupt();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** The Connect client (Connect protocol over HTTP/2) for the same call, signed the same way. */
  function connect<T extends DescService>(service: T, name: string) {
    return createServiceClient(service, `http://${address(name)}`, { protocol: "connect", signer: null, timeoutMs: 15_000 });
  }

  it("grpc.health.v1.Health/Check answers SERVING on every service, without credentials (kubelet's probe)", async () => {
    for (const { name } of expectedServices) {
      for (const service of ["", "liveness"]) {
        const answer = await grpcCall(address(name), { typeName: "grpc.health.v1.Health" } as DescService, "Check", { service });
        expect(answer.error, `${name} "${service}"`).toBeUndefined();
        // HealthCheckResponse { status = SERVING (1) }: field 1, varint 1.
        expect([...answer.bytes!], `${name} "${service}"`).toEqual([0x08, 0x01]);
      }
      const unknown = await grpcCall(address(name), { typeName: "grpc.health.v1.Health" } as DescService, "Check", { service: "nope.Service" });
      expect(unknown.error?.code).toBe(grpc.status.NOT_FOUND);
    }
  });

  it("one real RPC per service answers the same over gRPC (grpc-js) as over Connect", async () => {
    const userA = `grpc-user-${randomUUID()}`;

    // auth: no cookie, no token → no session.
    {
      const request = { cookie: "", bearerToken: "" };
      const viaGrpc = await grpcCall(address("auth"), AuthService, "GetSession", request, await bearer(AuthService));
      const viaConnect = await connect(AuthService, "auth").getSession(request, { headers: await bearer(AuthService) });
      expect(equals(AuthService.method.getSession.output, decode(AuthService.method.getSession.output, viaGrpc), viaConnect)).toBe(true);
    }

    // media: an upload slot made over Connect, then listed through both.
    {
      const headers = await bearer(MediaService, userA);
      await connect(MediaService, "media").createUpload(
        { userId: userA, fileName: "interop.mp3", contentType: "audio/mpeg", fileSize: 1234n, duration: 3 },
        { headers },
      );
      const request = { userId: userA, limit: 10, offset: 0 };
      const viaConnect = await connect(MediaService, "media").listFiles(request, { headers });
      const viaGrpc = decode(MediaService.method.listFiles.output, await grpcCall(address("media"), MediaService, "ListFiles", request, headers));
      expect(viaConnect.files).toHaveLength(1);
      expect(equals(MediaService.method.listFiles.output, viaGrpc, viaConnect)).toBe(true);
    }

    // transcription: the model catalog.
    {
      const headers = await bearer(TranscriptionService, userA);
      const viaConnect = await connect(TranscriptionService, "transcription").listModels({}, { headers });
      const viaGrpc = decode(
        TranscriptionService.method.listModels.output,
        await grpcCall(address("transcription"), TranscriptionService, "ListModels", {}, headers),
      );
      expect(viaConnect.models.length).toBeGreaterThan(0);
      expect(equals(TranscriptionService.method.listModels.output, viaGrpc, viaConnect)).toBe(true);
    }

    // transcription-worker serves only the health services: our own Check (latencies aside).
    {
      const headers = await bearer(HealthService);
      const viaConnect = await connect(HealthService, "transcription-worker").check({}, { headers });
      const viaGrpc = decode(HealthService.method.check.output, await grpcCall(address("transcription-worker"), HealthService, "Check", {}, headers));
      const strip = (m: typeof viaConnect) => ({ ...m, dependencies: m.dependencies.map((d) => ({ name: d.name, ok: d.ok, detail: d.detail })) });
      expect(viaConnect.service).toBe("transcription-worker");
      expect(strip(viaGrpc)).toEqual(strip(viaConnect));
    }

    // billing: the trial limits of a new user.
    {
      const headers = await bearer(BillingService, userA);
      const request = { userId: userA };
      const viaConnect = await connect(BillingService, "billing").getTrialLimits(request, { headers });
      const viaGrpc = decode(BillingService.method.getTrialLimits.output, await grpcCall(address("billing"), BillingService, "GetTrialLimits", request, headers));
      expect(equals(BillingService.method.getTrialLimits.output, viaGrpc, viaConnect)).toBe(true);
    }

    // blog: the seeded posts.
    {
      const headers = await bearer(BlogService);
      const viaConnect = await connect(BlogService, "blog").listPosts({ limit: 5 }, { headers });
      const viaGrpc = decode(BlogService.method.listPosts.output, await grpcCall(address("blog"), BlogService, "ListPosts", { limit: 5 }, headers));
      expect(viaConnect.posts.length).toBeGreaterThan(0);
      expect(equals(BlogService.method.listPosts.output, viaGrpc, viaConnect)).toBe(true);
    }

    // notifier: a contact message; each call opens its own ticket.
    {
      const headers = await bearer(NotifierService);
      const request = { name: "Interop", email: "interop@example.com", message: "Sent over gRPC and over Connect." };
      const viaConnect = await connect(NotifierService, "notifier").sendContactMessage(request, { headers });
      const viaGrpc = decode(NotifierService.method.sendContactMessage.output, await grpcCall(address("notifier"), NotifierService, "SendContactMessage", request, headers));
      expect(viaGrpc.ticketId).toMatch(/\S/);
      expect(viaGrpc.ticketId).not.toBe(viaConnect.ticketId);
    }

    // webhooks: the user's endpoints (none yet), the same through both clients.
    {
      const headers = await bearer(WebhooksService, userA);
      const request = { userId: userA };
      const viaConnect = await connect(WebhooksService, "webhooks").listEndpoints(request, { headers });
      const viaGrpc = decode(WebhooksService.method.listEndpoints.output, await grpcCall(address("webhooks"), WebhooksService, "ListEndpoints", request, headers));
      expect(equals(WebhooksService.method.listEndpoints.output, viaGrpc, viaConnect)).toBe(true);
    }

    // export: asks the transcription service (with export's own token) for a transcript the user does not have.
    {
      const headers = await bearer(ExportService, userA);
      const request = { userId: userA, transcriptionId: randomUUID(), format: ExportFormat.TXT, includeTimestamps: false };
      const viaConnect = await connect(ExportService, "export").createExport(request, { headers }).catch((e: unknown) => ConnectError.from(e));
      const viaGrpc = await grpcCall(address("export"), ExportService, "CreateExport", request, headers);
      expect(viaConnect).toBeInstanceOf(ConnectError);
      expect((viaConnect as ConnectError).code).toBe(Code.NotFound);
      expect(viaGrpc.error?.code).toBe(grpc.status.NOT_FOUND);
      expect(viaGrpc.error?.details).toBe((viaConnect as ConnectError).rawMessage);
    }
  });

  it("another user's transcription is NOT_FOUND; the owner gets it", async () => {
    const owner = `grpc-owner-${randomUUID()}`;
    const other = `grpc-other-${randomUUID()}`;
    const id = randomUUID();
    const db = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${env.EMBEDDED_PG_PORT}/transcription` });
    await db.connect();
    try {
      await db.query(
        `insert into transcriptions (id, user_id, file_id, display_name, file_name, uploaded_at, status, settings)
         values ($1, $2, $3, 'interop', 'interop.mp3', now(), 'failed', $4)`,
        [id, owner, randomUUID(), JSON.stringify({ provider: "local", model: "tiny.en", responseFormat: "verbose_json", timestampGranularities: ["segment"], temperature: 0, language: "auto", translateToEn: false })],
      );
    } finally {
      await db.end();
    }
    const asOther = await grpcCall(address("transcription"), TranscriptionService, "GetTranscription", { userId: other, id }, await bearer(TranscriptionService, other));
    expect(asOther.error?.code).toBe(grpc.status.NOT_FOUND);
    const asOwner = decode(
      TranscriptionService.method.getTranscription.output,
      await grpcCall(address("transcription"), TranscriptionService, "GetTranscription", { userId: owner, id }, await bearer(TranscriptionService, owner)),
    );
    expect(asOwner.transcription?.id).toBe(id);
    // The token names the user; a message naming someone else is refused outright.
    const mismatch = await grpcCall(address("transcription"), TranscriptionService, "GetTranscription", { userId: owner, id }, await bearer(TranscriptionService, other));
    expect(mismatch.error?.code).toBe(grpc.status.PERMISSION_DENIED);
  });

  it("an already expired deadline is DEADLINE_EXCEEDED, also when the server is the one to notice", async () => {
    const answer = await grpcCall(address("blog"), BlogService, "ListPosts", {}, await bearer(BlogService), new Date(Date.now() - 1_000));
    expect(answer.error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);

    // A raw HTTP/2 request with grpc-timeout 1ns: no client-side timer, only the server's.
    const session = http2.connect(`http://${address("blog")}`);
    try {
      const status = await new Promise<string | undefined>((resolve, reject) => {
        void bearer(BlogService).then((headers) => {
          const stream = session.request({
            ":method": "POST",
            ":path": "/transcribe.blog.v1.BlogService/ListPosts",
            "content-type": "application/grpc",
            te: "trailers",
            "grpc-timeout": "1n",
            ...headers,
          });
          let grpcStatus: string | undefined;
          stream.on("response", (h) => (grpcStatus ??= h["grpc-status"] as string | undefined));
          stream.on("trailers", (t) => (grpcStatus = t["grpc-status"] as string | undefined));
          stream.on("error", reject);
          stream.on("close", () => resolve(grpcStatus));
          stream.resume();
          stream.end(Buffer.from([0, 0, 0, 0, 0]));
        });
      });
      expect(status).toBe(String(grpc.status.DEADLINE_EXCEEDED));
    } finally {
      session.close();
    }
  });

  it("no, forged or expired credentials are UNAUTHENTICATED; a caller without a grant is PERMISSION_DENIED", async () => {
    const request = { userId: "u", limit: 1, offset: 0 };
    const media = address("media");
    const call = (metadata: Metadata) => grpcCall(media, MediaService, "ListFiles", request, metadata);

    expect((await call({})).error?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await call({ authorization: "Bearer not-a-token" })).error?.code).toBe(grpc.status.UNAUTHENTICATED);

    // Forged: signed as "bff" with a key the install does not know.
    const forger = (await generateServiceKeys(["bff"])).privateKeys.bff!;
    const forged = await createTokenSigner(forger).token(MediaService.typeName, "u");
    expect((await call({ authorization: `Bearer ${forged}` })).error?.code).toBe(grpc.status.UNAUTHENTICATED);

    // Expired: the real key, but its lifetime ended ten minutes ago.
    const key = await importJWK(keys.bff!, "EdDSA");
    const past = Math.floor(Date.now() / 1000) - 900;
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: "EdDSA", kid: "bff" })
      .setIssuer("bff")
      .setAudience(MediaService.typeName)
      .setSubject("u")
      .setIssuedAt(past)
      .setExpirationTime(past + 300)
      .sign(key);
    expect((await call({ authorization: `Bearer ${expired}` })).error?.code).toBe(grpc.status.UNAUTHENTICATED);

    // A token for another service (audience) is not accepted here.
    const elsewhere = await createTokenSigner(keys.bff!).token(BlogService.typeName, "u");
    expect((await call({ authorization: `Bearer ${elsewhere}` })).error?.code).toBe(grpc.status.UNAUTHENTICATED);

    // Valid, but the export service may only call TranscriptionService/GetTranscription.
    const asExport = await createTokenSigner(keys.export!).token(MediaService.typeName, undefined);
    expect((await call({ authorization: `Bearer ${asExport}` })).error?.code).toBe(grpc.status.PERMISSION_DENIED);

    // The same holds over Connect (HTTP/1.1 and HTTP/2).
    for (const protocol of ["connect", "connect-http1"] as const) {
      const client = createServiceClient(MediaService, `http://${media}`, { protocol, signer: null });
      await expect(client.listFiles(request)).rejects.toMatchObject({ code: Code.Unauthenticated });
    }
  });

  it("the live worker's bidirectional stream through grpc-js: speech in, words out; deadline, cancellation, credentials", { timeout: 300_000 }, async () => {
    const user = `grpc-live-${randomUUID()}`;
    const headers = await bearer(LiveTranscriptionService, user);
    const wav = path.join(dataDir, "live-speech.wav");
    await espeakNg(["-v", "en-us", "-s", "160", "-w", `${wav}.raw.wav`, "The library opens on Monday morning."]);
    const pcm = execFileSync(ffmpegPath, ["-nostdin", "-v", "error", "-i", `${wav}.raw.wav`, "-ar", "16000", "-ac", "1", "-f", "s16le", "-"]);
    const start = { start: { userId: user, model: "whisper-base", language: "en" } };
    const frames = [];
    for (let at = 0; at < pcm.length; at += 32_000) frames.push({ audio: pcm.subarray(at, at + 32_000) });

    const session = await grpcBidi(address("transcription-live"), LiveTranscriptionService, "Transcribe", [start, ...frames, { stop: {} }], headers);
    expect(session.error, session.error?.details).toBeUndefined();
    expect(session.answers[0]).toHaveProperty("ready");
    expect(session.answers.at(-1)).toMatchObject({ stopped: { reason: "stop" } });
    const settled = session.answers.flatMap((a) => ((a.words as { settled?: Array<{ text: string }> } | undefined)?.settled ?? []).map((w) => w.text));
    expect(settled.join("").toLowerCase()).toContain("library");

    // The caller cancels: the slot is free again for the next session at once.
    const cancelled = await grpcBidi(address("transcription-live"), LiveTranscriptionService, "Transcribe", [start], headers, { cancelAfterFirst: true, keepOpen: true });
    expect(cancelled.error?.code).toBe(grpc.status.CANCELLED);
    // A deadline the session outlives ends it with DEADLINE_EXCEEDED (and frees the slot too).
    const late = await grpcBidi(address("transcription-live"), LiveTranscriptionService, "Transcribe", [start], headers, {
      keepOpen: true,
      deadline: new Date(Date.now() + 20_000),
    });
    expect(late.error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    const again = await grpcBidi(address("transcription-live"), LiveTranscriptionService, "Transcribe", [start, frames[0]!, { stop: {} }], headers);
    expect(again.error, again.error?.details).toBeUndefined();

    // Credentials: none → UNAUTHENTICATED; another user's id than the token's → PERMISSION_DENIED.
    const anonymous = await grpcBidi(address("transcription-live"), LiveTranscriptionService, "Transcribe", [start, { stop: {} }], {});
    expect(anonymous.error?.code).toBe(grpc.status.UNAUTHENTICATED);
    const otherUser = await grpcBidi(
      address("transcription-live"),
      LiveTranscriptionService,
      "Transcribe",
      [{ start: { userId: "someone-else", language: "en" } }, { stop: {} }],
      headers,
    );
    expect(otherUser.error?.code).toBe(grpc.status.PERMISSION_DENIED);
  });

  describe("grpcurl (reflection)", () => {
    const binDir = process.env.K8S_TOOLS_DIR ?? path.join(process.env.HOME ?? "/root", ".cache/transcribe/bin");
    const grpcurl = [path.join(binDir, "grpcurl"), "/usr/local/bin/grpcurl"].find((p) => existsSync(p));
    if (!grpcurl) {
      if (process.env.REQUIRE_GRPCURL === "1") throw new Error(`grpcurl not found in ${binDir} (deploy/grpc-tools.sh install)`);
      skipWhen("grpcurl", `grpcurl is not in ${binDir}`);
      console.log(`skipped: grpcurl is not built (deploy/grpc-tools.sh install); the grpc-js checks above still ran`);
    }
    const run = (args: string[]) => {
      const result = spawnSync(grpcurl!, args, { encoding: "utf8", timeout: 20_000 });
      return { code: result.status, out: `${result.stdout}${result.stderr}` };
    };
    const served: Record<string, string> = {
      auth: "transcribe.auth.v1.AuthService",
      media: "transcribe.media.v1.MediaService",
      transcription: "transcribe.transcription.v1.TranscriptionService",
      "transcription-worker": "transcribe.health.v1.HealthService",
      billing: "transcribe.billing.v1.BillingService",
      export: "transcribe.export.v1.ExportService",
      blog: "transcribe.blog.v1.BlogService",
      notifier: "transcribe.notifier.v1.NotifierService",
      webhooks: "transcribe.webhooks.v1.WebhooksService",
      "transcription-live": "transcribe.live.v1.LiveTranscriptionService",
    };

    it.runIf(grpcurl)("lists and describes every service through reflection and makes a call", async () => {
      for (const { name } of expectedServices) {
        const list = run(["-plaintext", address(name), "list"]);
        expect(list.code, list.out).toBe(0);
        const names = list.out.trim().split("\n");
        expect(names).toEqual(expect.arrayContaining(["grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection", served[name]!]));

        const describe = run(["-plaintext", address(name), "describe", served[name]!]);
        expect(describe.code, describe.out).toBe(0);
        expect(describe.out).toContain(`service ${served[name]!.split(".").pop()} {`);

        const health = run(["-plaintext", address(name), "grpc.health.v1.Health/Check"]);
        expect(health.code, health.out).toBe(0);
        expect(JSON.parse(health.out)).toEqual({ status: "SERVING" });
      }
      // A real RPC with credentials, and without.
      const { authorization } = await bearer(BlogService);
      const posts = run(["-plaintext", "-H", `authorization: ${authorization}`, "-d", '{"limit": 2}', address("blog"), "transcribe.blog.v1.BlogService/ListPosts"]);
      expect(posts.code, posts.out).toBe(0);
      expect((JSON.parse(posts.out) as { posts: unknown[] }).posts).toHaveLength(2);
      const refused = run(["-plaintext", "-d", "{}", address("blog"), "transcribe.blog.v1.BlogService/ListPosts"]);
      expect(refused.out).toContain("Unauthenticated");
    });
  });
});

