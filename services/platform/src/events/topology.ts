import type { Topic } from "./catalog.js";

/** Which consumer (service) subscribes to which topics. */
export type Topology = Readonly<Record<string, readonly Topic[]>>;

/**
 * The product's static wiring. The embedded bus creates a queue for every pair at
 * start, in every process, so an event published before its consumer first ran is
 * already waiting for it. A topic no consumer lists here is published to no one.
 *
 * media ← media.objects: storage notifications tell media that an upload landed or an
 * object went away; media owns objects.
 *
 * auth ← auth.users: auth forwards TrackUserSignup to product analytics (PostHog) from a
 * consumer, so a PostHog outage delays the event instead of failing a sign-up.
 */
export const eventTopology = {
  notifier: ["notifier.mail"],
  auth: ["auth.users"],
  billing: ["transcription.jobs", "auth.users"],
  media: ["media.objects", "transcription.transcripts", "auth.users"],
  transcription: ["media.files", "auth.users"],
  export: ["transcription.transcripts", "auth.users"],
  webhooks: ["transcription.jobs"],
} as const satisfies Topology;

export type ConsumerName = keyof typeof eventTopology;
