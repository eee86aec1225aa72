import { AppError } from "@transcribe/platform";

/** The events a user can subscribe an endpoint to. */
export const WEBHOOK_EVENTS = ["transcription.completed", "transcription.failed"] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const messages = {
  invalidUrl: "The webhook URL is not a valid URL",
  scheme: "Webhook URLs must start with http:// or https://",
  credentials: "Webhook URLs cannot contain a user name or password",
  forbidden: "This URL points to localhost or a private network and cannot receive webhooks",
  unresolvable: (host: string) => `The host ${host} could not be found`,
  events: `Choose at least one event: ${WEBHOOK_EVENTS.join(", ")}`,
  unknownEvent: (name: string) => `Unknown event '${name}'; the events are ${WEBHOOK_EVENTS.join(", ")}`,
  tooMany: (max: number) => `You can register at most ${max} webhook endpoints`,
  notFound: "Webhook not found",
  deliveryNotFound: "Delivery not found",
} as const;

/** Parses a target URL's shape (not its address: that is address-guard's job). */
export function parseEndpointUrl(input: string): URL {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new AppError("invalid_argument", messages.invalidUrl, { field: "url" });
  }
  if (input.length > 2048) throw new AppError("invalid_argument", messages.invalidUrl, { field: "url" });
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new AppError("invalid_argument", messages.scheme, { field: "url" });
  if (url.username || url.password) throw new AppError("invalid_argument", messages.credentials, { field: "url" });
  return url;
}

export function checkEvents(events: readonly string[]): WebhookEvent[] {
  const unique = [...new Set(events)];
  if (unique.length === 0) throw new AppError("invalid_argument", messages.events, { field: "events" });
  for (const name of unique) {
    if (!(WEBHOOK_EVENTS as readonly string[]).includes(name)) throw new AppError("invalid_argument", messages.unknownEvent(name), { field: "events" });
  }
  return unique as WebhookEvent[];
}

/**
 * When the next attempt is due after `attempts` failed ones: base, 2×base, 4×base, ...
 * capped at an hour, or undefined once that would fall past giveUpAt.
 */
export function nextAttemptAt(attempts: number, now: Date, giveUpAt: Date, baseSeconds: number): Date | undefined {
  const delaySeconds = Math.min(3600, baseSeconds * 2 ** Math.max(0, attempts - 1));
  const next = new Date(now.getTime() + delaySeconds * 1000);
  return next.getTime() > giveUpAt.getTime() ? undefined : next;
}
