import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { create } from "@bufbuild/protobuf";
import { Code, type ConnectRouter } from "@connectrpc/connect";
import { Health, HealthCheckResponse_ServingStatus as Serving } from "@transcribe/proto/grpc/health/v1/health";
import { ServerReflection, ServerReflectionRequestSchema } from "@transcribe/proto/grpc/reflection/v1/reflection";
import { ServerReflection as ServerReflectionAlpha } from "@transcribe/proto/grpc/reflection/v1alpha/reflection";
import { HealthService } from "@transcribe/proto/health/v1/health";
import { ListFilesResponseSchema, MediaService } from "@transcribe/proto/media/v1/media";
import { afterEach, describe, expect, it } from "vitest";
import {
  builtInGrants,
  configureServiceClients,
  createLogger,
  createServiceClient,
  createTokenSigner,
  createTokenVerifier,
  currentUserId,
  generateServiceKeys,
  mergeGrants,
  parseGrants,
  runWithRequestId,
  setRequestUser,
  startServiceServer,
  type ServiceServer,
} from "../../src/index.js";
import { rpcProtocols } from "../../src/rpc/client.js";

const logger = createLogger("wire-test", "silent");
const keys = await generateServiceKeys(["bff", "export", "transcription"]);
const seen: Array<{ userId: string; tokenUser: string | undefined }> = [];

function mediaRoutes(router: ConnectRouter) {
  router.service(MediaService, {
    async listFiles(request) {
      seen.push({ userId: request.userId, tokenUser: currentUserId() });
      return create(ListFilesResponseSchema, { totalCount: 7 });
    },
  });
}

const servers: ServiceServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  configureServiceClients({ signer: undefined, protocol: "connect" });
});

async function serve(extra: Partial<Parameters<typeof startServiceServer>[0]> = {}) {
  const server = await startServiceServer({
    name: "media",
    host: "127.0.0.1",
    port: 0,
    logger,
    routes: mediaRoutes,
    callers: { verifier: createTokenVerifier(keys.publicKeys), grants: builtInGrants },
    reflection: true,
    ...extra,
  });
  servers.push(server);
  return server;
}

describe("one port, every protocol", () => {
  it.each(rpcProtocols)("%s: a signed call reaches the handler with the user as a verified claim", async (protocol) => {
    const server = await serve();
    const client = createServiceClient(MediaService, server.url, { protocol, signer: createTokenSigner(keys.privateKeys.bff!) });
    const answer = await runWithRequestId("r1", async () => {
      setRequestUser("user-1");
      return client.listFiles({ userId: "user-1" });
    });
    expect(answer.totalCount).toBe(7);
    expect(seen.at(-1)).toEqual({ userId: "user-1", tokenUser: "user-1" });
    // HTTP/1.1 routes on the same port.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it("a user-bound caller's message must name its user; other callers need a grant", async () => {
    const server = await serve();
    const asBff = createServiceClient(MediaService, server.url, { signer: createTokenSigner(keys.privateKeys.bff!) });
    await expect(
      runWithRequestId("r2", async () => {
        setRequestUser("user-1");
        return asBff.listFiles({ userId: "user-2" });
      }),
    ).rejects.toMatchObject({ code: Code.PermissionDenied });
    await expect(asBff.listFiles({ userId: "user-2" })).rejects.toMatchObject({ code: Code.PermissionDenied });
    const asExport = createServiceClient(MediaService, server.url, { signer: createTokenSigner(keys.privateKeys.export!) });
    await expect(asExport.listFiles({ userId: "u" })).rejects.toMatchObject({ code: Code.PermissionDenied });
    const granted = mergeGrants(builtInGrants, parseGrants("export=transcribe.media.v1.MediaService/ListFiles").grants);
    const open = await serve({ callers: { verifier: createTokenVerifier(keys.publicKeys), grants: granted } });
    const asExportThere = createServiceClient(MediaService, open.url, { signer: createTokenSigner(keys.privateKeys.export!) });
    expect((await asExportThere.listFiles({ userId: "u" })).totalCount).toBe(7);
  });

  it("tokens: none, foreign key, another audience, expired", async () => {
    const server = await serve();
    const unsigned = createServiceClient(MediaService, server.url, { signer: null });
    await expect(unsigned.listFiles({})).rejects.toMatchObject({ code: Code.Unauthenticated });
    const foreign = (await generateServiceKeys(["bff"])).privateKeys.bff!;
    const forged = createServiceClient(MediaService, server.url, { signer: createTokenSigner(foreign) });
    await expect(forged.listFiles({})).rejects.toMatchObject({ code: Code.Unauthenticated });
    const otherAudience = await createTokenSigner(keys.privateKeys.bff!).token(HealthService.typeName, undefined);
    await expect(unsigned.listFiles({}, { headers: { authorization: `Bearer ${otherAudience}` } })).rejects.toMatchObject({ code: Code.Unauthenticated });
    const old = createTokenSigner(keys.privateKeys.bff!, () => Date.now() - 10 * 60_000);
    const expired = await old.token(MediaService.typeName, undefined);
    await expect(unsigned.listFiles({}, { headers: { authorization: `Bearer ${expired}` } })).rejects.toMatchObject({ code: Code.Unauthenticated });
  });
});

describe("grpc.health.v1 and reflection", () => {
  it("Watch follows readiness and says NOT_SERVING once draining", async () => {
    const server = await serve({ shutdownTimeoutMs: 500 });
    const health = createServiceClient(Health, server.url, { signer: null });
    expect((await health.check({ service: "" })).status).toBe(Serving.SERVING);
    expect((await health.check({ service: MediaService.typeName })).status).toBe(Serving.SERVING);
    await expect(health.check({ service: "other.Service" })).rejects.toMatchObject({ code: Code.NotFound });
    const statuses: Serving[] = [];
    const watching = (async () => {
      try {
        for await (const answer of health.watch({ service: "" }, { timeoutMs: 5_000 })) {
          statuses.push(answer.status);
          if (statuses.length === 1) void server.close();
        }
      } catch {
        // the stream ends with the server
      }
    })();
    await watching;
    servers.splice(servers.indexOf(server), 1);
    expect(statuses).toEqual([Serving.SERVING, Serving.NOT_SERVING]);
  });

  it("reflection lists the served services and gives their files (v1 and v1alpha)", async () => {
    const server = await serve();
    for (const service of [ServerReflection, ServerReflectionAlpha]) {
      const client = createServiceClient(service, server.url, { signer: null });
      async function* requests() {
        yield create(ServerReflectionRequestSchema, { messageRequest: { case: "listServices", value: "" } });
        yield create(ServerReflectionRequestSchema, { messageRequest: { case: "fileContainingSymbol", value: "transcribe.media.v1.MediaService.ListFiles" } });
        yield create(ServerReflectionRequestSchema, { messageRequest: { case: "fileByFilename", value: "nope.proto" } });
      }
      const answers = [];
      for await (const answer of client.serverReflectionInfo(requests() as never)) answers.push(answer);
      const list = answers[0]!.messageResponse;
      expect(list.case === "listServicesResponse" && list.value.service.map((s) => s.name)).toEqual([
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
        "transcribe.health.v1.HealthService",
        "transcribe.media.v1.MediaService",
      ]);
      const files = answers[1]!.messageResponse;
      expect(files.case).toBe("fileDescriptorResponse");
      expect(answers[2]!.messageResponse.case).toBe("errorResponse");
    }
  });

  it("without reflection enabled, reflection is not served", async () => {
    const server = await serve({ reflection: false });
    const client = createServiceClient(ServerReflection, server.url, { signer: null });
    async function* one() {
      yield create(ServerReflectionRequestSchema, { messageRequest: { case: "listServices", value: "" } });
    }
    await expect(
      (async () => {
        for await (const _ of client.serverReflectionInfo(one() as never)) void _;
      })(),
    ).rejects.toMatchObject({ code: Code.Unimplemented });
  });
});

describe("TLS by certificate paths", () => {
  it("serves gRPC and HTTP/1.1 over TLS, trusting the configured CA", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "rpc-tls-"));
    try {
      execFileSync("openssl", [
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        "-keyout", path.join(dir, "tls.key"), "-out", path.join(dir, "tls.crt"),
      ], { stdio: "ignore" });
      const server = await serve({ tls: { cert: readFileSync(path.join(dir, "tls.crt")), key: readFileSync(path.join(dir, "tls.key")) } });
      expect(server.url.startsWith("https://")).toBe(true);
      configureServiceClients({ caFile: path.join(dir, "tls.crt") });
      for (const protocol of rpcProtocols) {
        const client = createServiceClient(MediaService, server.url, { protocol, signer: createTokenSigner(keys.privateKeys.transcription!) });
        await expect(client.listFiles({ userId: "u" }), protocol).rejects.toMatchObject({ code: Code.PermissionDenied });
        const health = createServiceClient(Health, server.url, { protocol, signer: null });
        expect((await health.check({})).status).toBe(Serving.SERVING);
      }
    } finally {
      configureServiceClients({ caFile: undefined });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
