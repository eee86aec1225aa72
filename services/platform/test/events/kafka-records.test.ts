import { TranscriptRenamedSchema } from "@transcribe/proto/events/v1/events";
import { describe, expect, it } from "vitest";
import {
  envelopeFromMessage,
  envelopeToMessage,
  eventBusConfigProblems,
  eventBusConfigSchema,
  loadConfig,
  MalformedRecordError,
  newEvent,
  parseBrokers,
  parseTopicPartitions,
  toEnvelope,
} from "../../src/index.js";

describe("Kafka records (no broker)", () => {
  it("carries an envelope as key, protobuf value and headers, and back unchanged", () => {
    const envelope = toEnvelope(newEvent(TranscriptRenamedSchema, { transcriptId: "tr-ü", userId: "u", newName: "名前" }));
    const message = envelopeToMessage(envelope, { "replay-for": "export" });
    expect(message.key).toBe("tr-ü");
    expect(Buffer.isBuffer(message.value)).toBe(true);
    expect(message.headers).toMatchObject({
      id: envelope.id,
      type: "transcribe.events.v1.TranscriptRenamed",
      topic: "transcription.transcripts",
      occurredAt: envelope.occurredAt.toISOString(),
      "replay-for": "export",
    });
    // As a consumer receives it: every header and the key as Buffers.
    const received = {
      key: Buffer.from(message.key as string),
      value: message.value as Buffer,
      headers: Object.fromEntries(Object.entries(message.headers!).map(([k, v]) => [k, Buffer.from(v as string)])),
    };
    const back = envelopeFromMessage(received);
    expect(back).toEqual({ ...envelope, payload: new Uint8Array(envelope.payload) });
    expect(back.occurredAt.getTime()).toBe(envelope.occurredAt.getTime());
  });

  it("names everything wrong with a record that is not an event", () => {
    expect(() => envelopeFromMessage({ key: null, value: Buffer.alloc(0), headers: { topic: "nope", occurredAt: "yesterday" } })).toThrow(
      MalformedRecordError,
    );
    try {
      envelopeFromMessage({ key: null, value: null, headers: { topic: "nope", occurredAt: "yesterday" } });
    } catch (error) {
      expect((error as Error).message).toMatch(/no "id" header.*no "type" header.*not a catalog topic \(nope\).*not a date \(yesterday\).*no key/);
    }
  });

  it("parses broker lists and per-topic partition counts", () => {
    expect(parseBrokers(" 127.0.0.1:9092, kafka-0.kafka:9092 ")).toEqual(["127.0.0.1:9092", "kafka-0.kafka:9092"]);
    expect(() => parseBrokers("localhost")).toThrow(/not host:port/);
    expect(parseTopicPartitions("transcription.jobs=12, media.files=6")).toEqual({ "transcription.jobs": 12, "media.files": 6 });
    expect(parseTopicPartitions(undefined)).toEqual({});
    expect(() => parseTopicPartitions("media.nothing=3")).toThrow(/unknown topic/);
    expect(() => parseTopicPartitions("media.files=0")).toThrow(/positive integer/);
  });

  it("requires exactly the chosen bus's variables", () => {
    const problems = (env: Record<string, string>) => eventBusConfigProblems(loadConfig(eventBusConfigSchema, env));
    expect(problems({})).toEqual(["EVENT_BUS_DATABASE_URL: required with EVENT_BUS=embedded (not set)"]);
    expect(problems({ EVENT_BUS_DATABASE_URL: "postgres://u@h:5432/events" })).toEqual([]);
    expect(problems({ EVENT_BUS: "kafka" })).toEqual([expect.stringMatching(/^KAFKA_BROKERS: required with EVENT_BUS=kafka/)]);
    expect(problems({ EVENT_BUS: "kafka", KAFKA_BROKERS: "127.0.0.1:9092" })).toEqual([]);
    expect(problems({ EVENT_BUS: "kafka", KAFKA_BROKERS: "nohost", KAFKA_TOPIC_PARTITIONS: "x=1" })).toEqual([
      expect.stringMatching(/^KAFKA_BROKERS: "nohost" is not host:port/),
      expect.stringMatching(/^KAFKA_TOPIC_PARTITIONS: unknown topic "x"/),
    ]);
    expect(() => loadConfig(eventBusConfigSchema, { EVENT_BUS: "rabbit" })).toThrow(/EVENT_BUS: must be embedded or kafka/);
  });
});
