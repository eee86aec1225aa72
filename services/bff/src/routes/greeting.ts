import type { Logger } from "@transcribe/platform";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { security } from "../http/openapi.js";

export type TimeOfDay = "morning" | "afternoon" | "evening" | "night";

export interface GreetingInput {
  /** The user's first name, or undefined when the account has none. */
  name: string | undefined;
  timeOfDay: TimeOfDay;
  /** e.g. "Monday 09:14" in the user's time zone. */
  localTime: string;
}

/** Writes a greeting (an LLM); undefined/throwing means "no greeting". */
export type GreetingWriter = (input: GreetingInput, signal: AbortSignal) => Promise<string | undefined>;

/** The local hour and weekday in `tz` (an IANA zone), UTC when tz is missing or unknown. */
export function localClock(now: Date, tz: string | undefined): { hour: number; localTime: string } {
  let zone = "UTC";
  if (tz) {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: tz });
      zone = tz;
    } catch {
      zone = "UTC";
    }
  }
  const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, weekday: "long", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(now);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const hour = Number(get("hour")) % 24;
  return { hour, localTime: `${get("weekday")} ${get("hour")}:${get("minute")}` };
}

export function timeOfDayOf(hour: number): TimeOfDay {
  if (hour >= 5 && hour < 12) return "morning";
  if (hour >= 12 && hour < 17) return "afternoon";
  if (hour >= 17 && hour < 22) return "evening";
  return "night";
}

/** The deterministic greeting used without an LLM key. */
export function templateGreeting({ name, timeOfDay }: GreetingInput): string {
  const who = name ? `, ${name}` : "";
  switch (timeOfDay) {
    case "morning":
      return `Good morning${who}! Ready to turn today's recordings into text?`;
    case "afternoon":
      return `Good afternoon${who}! What shall we transcribe next?`;
    case "evening":
      return `Good evening${who}! Let's get those recordings transcribed.`;
    case "night":
      return `Working late${who}? Your transcriptions are waiting.`;
  }
}

export function firstName(displayName: string | undefined): string | undefined {
  const first = displayName?.trim().split(/\s+/)[0];
  return first ? first.slice(0, 40) : undefined;
}

/** Groq's OpenAI-compatible chat completions; one short sentence, plain text. */
export function groqGreetingWriter(options: { apiKey: string; model: string; endpoint?: string }): GreetingWriter {
  const endpoint = options.endpoint ?? "https://api.groq.com/openai/v1/chat/completions";
  return async (input, signal) => {
    const response = await fetch(endpoint, {
      method: "POST",
      signal,
      headers: { authorization: `Bearer ${options.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: options.model,
        max_tokens: 60,
        temperature: 0.8,
        messages: [
          {
            role: "system",
            content:
              "You write one short, warm greeting (at most 20 words, plain text, no quotes, no emoji) for the dashboard of a transcription app. Mention the time of day; use the name if one is given.",
          },
          { role: "user", content: `Name: ${input.name ?? "(none)"}. Local time: ${input.localTime} (${input.timeOfDay}).` },
        ],
      }),
    });
    if (!response.ok) throw new Error(`Groq answered ${response.status}`);
    const json = (await response.json()) as { choices?: Array<{ message?: { content?: string } }> };
    const text = json.choices?.[0]?.message?.content?.trim().replace(/^["']|["']$/g, "");
    return text && text.length <= 300 ? text : undefined;
  };
}

/**
 * GET /api/v1/ai-greeting?tz=Europe/Berlin → {greeting} (docs/requirements.md "Calls"). With a writer (GROQ_API_KEY)
 * the LLM writes it within timeoutMs, else null; without one the template answers. It
 * never fails the dashboard: any problem is a null greeting.
 */
export const greetingRoutes: FastifyPluginAsyncZod<{ writer: GreetingWriter | undefined; timeoutMs: number; logger: Logger; now?: () => Date }> = async (
  app,
  { writer, timeoutMs, logger, now },
) => {
  app.get(
    "/api/v1/ai-greeting",
    {
      schema: {
        tags: ["account"],
        operationId: "getGreeting",
        summary: "A personal, time-of-day greeting for the dashboard",
        security: security.session,
        querystring: z.object({ tz: z.string().max(64).optional().describe("IANA time zone, e.g. Europe/Berlin; UTC when missing or unknown") }),
        response: { 200: z.object({ greeting: z.string().nullable() }).meta({ id: "AiGreeting", description: "The greeting, or null when none could be written in time" }), 400: apiErrorSchema, 401: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      const { hour, localTime } = localClock(now?.() ?? new Date(), request.query.tz);
      const input: GreetingInput = { name: firstName(request.user?.name), timeOfDay: timeOfDayOf(hour), localTime };
      if (!writer) return { greeting: templateGreeting(input) };
      try {
        return { greeting: (await writer(input, AbortSignal.timeout(timeoutMs))) ?? null };
      } catch (error) {
        logger.warn({ err: error }, "AI greeting failed; answering null");
        return { greeting: null };
      }
    },
  );
};
