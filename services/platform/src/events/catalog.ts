import { createRegistry, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import {
  file_transcribe_events_v1_events,
  FileUploadedSchema,
  SendEmailSchema,
  SendMagicLinkSchema,
  StorageNotificationSchema,
  SubscriptionCancelledSchema,
  SubscriptionPurchasedSchema,
  TrackUserSignupSchema,
  TranscriptDeletedSchema,
  TranscriptEditedSchema,
  TranscriptionCompletedSchema,
  TranscriptionCreatedSchema,
  TranscriptionFailedSchema,
  TranscriptionStartedSchema,
  TranscriptRenamedSchema,
  TranscriptSpeakerRenamedSchema,
  UserDeletedSchema,
} from "@transcribe/proto/events/v1/events";
import { AppError } from "../errors.js";

/** One topic per aggregate; the same names are Kafka topics in the cluster. */
export const topics = [
  "auth.users",
  "notifier.mail",
  "billing.subscriptions",
  "media.files",
  "media.objects",
  "transcription.jobs",
  "transcription.transcripts",
] as const;
export type Topic = (typeof topics)[number];

export interface CatalogEntry<Desc extends DescMessage = DescMessage> {
  readonly schema: Desc;
  readonly topic: Topic;
  /**
   * The aggregate id the event belongs to. It is the partition key: one aggregate's
   * events land on one partition and so stay in order.
   */
  // Method syntax on purpose: it lets a typed entry stand in for CatalogEntry<DescMessage>.
  key(event: MessageShape<Desc>): string;
}

function entry<Desc extends DescMessage>(
  schema: Desc,
  topic: Topic,
  key: (event: MessageShape<Desc>) => string,
): CatalogEntry<Desc> {
  return { schema, topic, key };
}

const entries = [
  entry(TrackUserSignupSchema, "auth.users", (e) => e.userId),
  entry(UserDeletedSchema, "auth.users", (e) => e.userId),
  entry(SendMagicLinkSchema, "notifier.mail", (e) => e.email),
  entry(SendEmailSchema, "notifier.mail", (e) => e.to),
  entry(SubscriptionPurchasedSchema, "billing.subscriptions", (e) => e.userId),
  entry(SubscriptionCancelledSchema, "billing.subscriptions", (e) => e.userId),
  entry(FileUploadedSchema, "media.files", (e) => e.fileId),
  entry(StorageNotificationSchema, "media.objects", (e) => e.key),
  entry(TranscriptionCreatedSchema, "transcription.jobs", (e) => e.jobId),
  entry(TranscriptionStartedSchema, "transcription.jobs", (e) => e.jobId),
  entry(TranscriptionCompletedSchema, "transcription.jobs", (e) => e.jobId),
  entry(TranscriptionFailedSchema, "transcription.jobs", (e) => e.jobId),
  entry(TranscriptRenamedSchema, "transcription.transcripts", (e) => e.transcriptId),
  entry(TranscriptDeletedSchema, "transcription.transcripts", (e) => e.transcriptId),
  entry(TranscriptSpeakerRenamedSchema, "transcription.transcripts", (e) => e.transcriptId),
  entry(TranscriptEditedSchema, "transcription.transcripts", (e) => e.transcriptId),
] as const;

/** The generated descriptor of every event in the catalog. */
export type EventSchema = (typeof entries)[number]["schema"];
/**
 * Any event of the product, as a union discriminated by `$typeName`, so a consumer can
 * `switch (event.$typeName)` and get the typed message in each branch.
 */
export type EventMessage = MessageShape<EventSchema>;
export type EventTypeName = EventMessage["$typeName"];

/** Catalog entries by full protobuf type name (e.g. "transcribe.events.v1.FileUploaded"). */
export const eventCatalog: ReadonlyMap<string, CatalogEntry> = new Map(
  entries.map((e): [string, CatalogEntry] => [e.schema.typeName, e as CatalogEntry]),
);

/** Resolves type names found in envelopes back to descriptors. */
export const eventRegistry = createRegistry(file_transcribe_events_v1_events);

export function catalogEntry(typeName: string): CatalogEntry {
  const found = eventCatalog.get(typeName);
  if (!found) throw new AppError("invalid_argument", `Unknown event type: ${typeName}`);
  return found;
}

/** Narrows a decoded event to one message type. */
export function isEvent<Desc extends EventSchema>(event: EventMessage, schema: Desc): event is MessageShape<Desc> & EventMessage {
  return event.$typeName === schema.typeName;
}
