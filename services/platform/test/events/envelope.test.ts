import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  file_transcribe_events_v1_events,
  FileUploadedSchema,
  StorageAction,
  StorageNotificationSchema,
  TranscriptionCompletedSchema,
  TranscriptionOutcome,
} from "@transcribe/proto/events/v1/events";
import { describe, expect, it } from "vitest";
import {
  catalogEntry,
  decodeEvent,
  envelopeFromJson,
  envelopeToJson,
  eventCatalog,
  eventTopology,
  isAsync,
  isEvent,
  newEvent,
  toEnvelope,
  topics,
} from "../../src/index.js";

describe("event catalog", () => {
  it("covers every message of events.proto with a topic and a key field", () => {
    const messages = file_transcribe_events_v1_events.messages;
    expect(messages.length).toBeGreaterThan(0);
    const missing = messages.filter((m) => !eventCatalog.has(m.typeName)).map((m) => m.typeName);
    expect(missing).toEqual([]);
    expect(eventCatalog.size).toBe(messages.length);
    for (const message of messages) {
      const entry = catalogEntry(message.typeName);
      expect(topics).toContain(entry.topic);
      // Every event carries the fields the spec requires of events.
      expect(message.fields.map((f) => f.name).slice(0, 3)).toEqual(["id", "timestamp", "async"]);
    }
  });

  it("routes each event to its aggregate's topic, keyed by the aggregate id", () => {
    const uploaded = newEvent(FileUploadedSchema, { fileId: "f1", userId: "u1" });
    expect(toEnvelope(uploaded)).toMatchObject({ topic: "media.files", key: "f1" });
    const stored = newEvent(StorageNotificationSchema, { key: "raw/u1/f1.mp3", bucket: "b" });
    expect(toEnvelope(stored)).toMatchObject({ topic: "media.objects", key: "raw/u1/f1.mp3" });
  });

  it("has a consumer for every topic that carries events someone must act on", () => {
    const consumed = new Set(Object.values(eventTopology).flat());
    for (const topic of ["auth.users", "notifier.mail", "media.files", "media.objects", "transcription.jobs", "transcription.transcripts"]) {
      expect(consumed.has(topic as never), topic).toBe(true);
    }
  });
});

describe("event envelope", () => {
  it("fills id and timestamp, and round-trips through binary and JSON", () => {
    const before = Date.now();
    const event = newEvent(TranscriptionCompletedSchema, {
      jobId: "job-1",
      userId: "user-1",
      status: TranscriptionOutcome.SUCCESS,
      audioDuration: 12.5,
    });
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(event.timestamp?.seconds) * 1000).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);

    const envelope = toEnvelope(event);
    expect(envelope).toMatchObject({
      id: event.id,
      type: "transcribe.events.v1.TranscriptionCompleted",
      topic: "transcription.jobs",
      key: "job-1",
    });
    expect(envelope.payload).toBeInstanceOf(Uint8Array);

    const viaJson = envelopeFromJson(JSON.parse(JSON.stringify(envelopeToJson(envelope))));
    expect(viaJson).toEqual({ ...envelope, payload: new Uint8Array(envelope.payload) });

    const decoded = decodeEvent(viaJson);
    expect(decoded).toEqual(event);
    expect(isEvent(decoded, TranscriptionCompletedSchema)).toBe(true);
    if (decoded.$typeName === "transcribe.events.v1.TranscriptionCompleted") {
      expect(decoded.status).toBe(TranscriptionOutcome.SUCCESS);
    }
  });

  it("keeps int64, optional and nested timestamp fields", () => {
    const eventTime = new Date("2024-05-01T10:00:00.123Z");
    const event = newEvent(StorageNotificationSchema, {
      action: StorageAction.PUT_OBJECT,
      bucket: "uploads",
      key: "raw/a.wav",
      size: 9_007_199_254_740_993n,
      eventTime: timestampFromDate(eventTime),
    });
    const decoded = decodeEvent(toEnvelope(event));
    expect(decoded).toEqual(event);
    expect(isEvent(decoded, StorageNotificationSchema) && decoded.size).toBe(9_007_199_254_740_993n);
    expect(isEvent(decoded, StorageNotificationSchema) && decoded.tag).toBeUndefined();
  });

  it("treats an unset async flag as true", () => {
    expect(isAsync(newEvent(FileUploadedSchema, { fileId: "f" }))).toBe(true);
    expect(isAsync(newEvent(FileUploadedSchema, { fileId: "f", async: false }))).toBe(false);
    expect(isAsync(newEvent(FileUploadedSchema, { fileId: "f", async: true }))).toBe(true);
  });

  it("refuses events it cannot route or decode", () => {
    expect(() => toEnvelope(newEvent(FileUploadedSchema, { fileId: "" }))).toThrow(/empty partition key/);
    expect(() => toEnvelope(create(FileUploadedSchema, { id: "not-a-uuid", fileId: "f" }))).toThrow(/uuid/);
    const envelope = toEnvelope(newEvent(FileUploadedSchema, { fileId: "f" }));
    expect(() => decodeEvent({ ...envelope, type: "transcribe.events.v1.Nope" })).toThrow(/Unknown event type/);
    expect(() => envelopeFromJson({ ...envelopeToJson(envelope), topic: "nope" })).toThrow(/Malformed event envelope/);
  });
});
