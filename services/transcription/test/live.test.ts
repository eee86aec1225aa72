import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  builtInGrants,
  createServiceClient,
  createTokenSigner,
  createTokenVerifier,
  generateServiceKeys,
  startServiceServer,
  type ServiceServer,
} from "@transcribe/platform";
import { type TranscribeRequest, TranscribeRequestSchema, type TranscribeResponse, LiveTranscriptionService } from "@transcribe/proto/live/v1/live";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LiveEngineProcess } from "../src/engines/local/live-process.js";
import { liveServiceImpl } from "../src/live/live-service.js";
import { SlotPool } from "../src/live/slots.js";
import { engineUnavailable, logger, synthesize, whisperModelsDir, whisperPython, wordErrorRate } from "./helpers.js";

/**
 * The live worker over real gRPC (service tokens, HTTP/2) with the real streaming engine:
 * speech synthesized with espeak-ng, sent at real time in 100 ms frames, as a browser does.
 */
const SCRIPT =
  "The committee met on Tuesday morning to review the budget for the new library. " +
  "Several members asked whether the building could open before the end of the summer.";

const FRAME_BYTES = 3_200; // 100 ms of 16 kHz s16le

function pcmOf(wav: string): Buffer {
  const data = readFileSync(wav);
  const at = data.indexOf("data", 12, "ascii");
  return data.subarray(at + 8);
}

async function* realTime(userId: string, pcm: Buffer, options: { stop?: boolean; garbage?: Uint8Array } = {}): AsyncGenerator<TranscribeRequest> {
  yield create(TranscribeRequestSchema, { kind: { case: "start", value: { userId, model: "whisper-base", language: "en" } } });
  const started = performance.now();
  for (let at = 0; at < pcm.length; at += FRAME_BYTES) {
    yield create(TranscribeRequestSchema, { kind: { case: "audio", value: pcm.subarray(at, at + FRAME_BYTES) } });
    if (options.garbage && at >= FRAME_BYTES * 5) {
      yield create(TranscribeRequestSchema, { kind: { case: "audio", value: options.garbage } });
    }
    const due = started + ((at + FRAME_BYTES) / 32_000) * 1000;
    await sleep(Math.max(0, due - performance.now()));
  }
  if (options.stop !== false) yield create(TranscribeRequestSchema, { kind: { case: "stop", value: {} } });
}

describe.skipIf(engineUnavailable)("live transcription worker (gRPC stream, real engine)", () => {
  let server: ServiceServer;
  let engines: LiveEngineProcess[];
  let slots: SlotPool<LiveEngineProcess>;
  let client: ReturnType<typeof createServiceClient<typeof LiveTranscriptionService>>;
  let stranger: ReturnType<typeof createServiceClient<typeof LiveTranscriptionService>>;
  let speech: Buffer;

  beforeAll(async () => {
    const keys = await generateServiceKeys(["bff", "export"]);
    engines = [new LiveEngineProcess(whisperPython, logger)];
    slots = new SlotPool(engines);
    server = await startServiceServer({
      name: "transcription-live-test",
      host: "127.0.0.1",
      port: 0,
      logger,
      callers: { verifier: createTokenVerifier(keys.publicKeys), grants: builtInGrants },
      routes: (router) =>
        router.service(
          LiveTranscriptionService,
          liveServiceImpl({
            slots,
            locations: { explicit: {}, modelsDir: whisperModelsDir, dataModelsDir: "/nonexistent", allowDownload: false },
            maxSeconds: 600,
            threads: 2,
            computeType: "int8",
            device: "cpu",
            logger,
          }),
        ),
    });
    client = createServiceClient(LiveTranscriptionService, server.url, {
      protocol: "grpc",
      timeoutMs: 120_000,
      signer: createTokenSigner(keys.privateKeys.bff!),
    });
    stranger = createServiceClient(LiveTranscriptionService, server.url, {
      protocol: "grpc",
      timeoutMs: 10_000,
      signer: createTokenSigner(keys.privateKeys.export!),
    });
    speech = pcmOf((await synthesize(SCRIPT, { voice: "en-us", speed: 160 })).path);
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    for (const engine of engines ?? []) engine.kill();
  });

  it("streams partial words, then settles them; the settled text is the script", { timeout: 180_000 }, async () => {
    const outputs: Array<{ at: number; output: TranscribeResponse }> = [];
    const started = performance.now();
    for await (const output of client.transcribe(realTime("user-1", speech))) {
      outputs.push({ at: performance.now() - started, output });
    }
    expect(outputs[0]!.output.kind.case).toBe("ready");
    expect(outputs.at(-1)!.output.kind).toMatchObject({ case: "stopped", value: { reason: "stop" } });
    const words = outputs.flatMap(({ output }) => (output.kind.case === "words" ? [output.kind.value] : []));
    const settled = words.flatMap((w) => w.settled);
    const text = settled.map((w) => w.text).join("");
    expect(wordErrorRate(SCRIPT, text)).toBeLessThanOrEqual(0.15);
    // Unsettled words were shown before they settled (how soon is a benchmark: bench/live/).
    expect(words.some((w) => w.partial.length > 0)).toBe(true);
    const duration = speech.length / 32_000;
    // Settled words are in order, timed within the audio.
    for (let i = 1; i < settled.length; i++) expect(settled[i]!.start).toBeGreaterThanOrEqual(settled[i - 1]!.start - 0.05);
    expect(settled.at(-1)!.end).toBeLessThanOrEqual(duration + 0.5);
    // The slot is free again.
    expect(slots.inUse).toBe(0);
  });

  it("refuses a second session at once when every slot is busy, and frees the slot when the client vanishes", { timeout: 180_000 }, async () => {
    const first = new AbortController();
    // A session held open: audio keeps coming, no stop.
    const holder = (async () => {
      for await (const _ of client.transcribe(realTime("user-1", Buffer.concat([speech, speech]), { stop: false }), { signal: first.signal })) void _;
    })().catch(() => undefined);
    for (let i = 0; i < 600 && slots.inUse === 0; i++) await sleep(100);
    expect(slots.inUse).toBe(1);

    const refusedAt = performance.now();
    const refusal = await (async () => {
      for await (const _ of client.transcribe(realTime("user-2", speech))) void _;
    })().catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ConnectError);
    expect((refusal as ConnectError).code).toBe(Code.ResourceExhausted);
    expect(performance.now() - refusedAt).toBeLessThan(5_000);

    first.abort();
    await holder;
    for (let i = 0; i < 50 && slots.inUse > 0; i++) await sleep(100);
    expect(slots.inUse).toBe(0);
  });

  it("ends a session that sends a frame of odd length with INVALID_ARGUMENT", { timeout: 120_000 }, async () => {
    const error = await (async () => {
      for await (const _ of client.transcribe(realTime("user-1", speech, { garbage: new Uint8Array([1, 2, 3]) }))) void _;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.InvalidArgument);
    expect((error as ConnectError).rawMessage).toMatch(/16-bit samples/);
    for (let i = 0; i < 50 && slots.inUse > 0; i++) await sleep(100);
    expect(slots.inUse).toBe(0);
  });

  it("checks the caller: a service without the grant is PERMISSION_DENIED, a first message that is not start INVALID_ARGUMENT", async () => {
    const denied = await (async () => {
      for await (const _ of stranger.transcribe(realTime("user-1", speech.subarray(0, 3_200)))) void _;
    })().catch((e: unknown) => e);
    expect((denied as ConnectError).code).toBe(Code.PermissionDenied);

    async function* audioFirst() {
      yield create(TranscribeRequestSchema, { kind: { case: "audio", value: new Uint8Array(320) } });
    }
    const invalid = await (async () => {
      for await (const _ of client.transcribe(audioFirst())) void _;
    })().catch((e: unknown) => e);
    expect((invalid as ConnectError).code).toBe(Code.InvalidArgument);
  });
});
