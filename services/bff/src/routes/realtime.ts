import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import { z } from "zod";
import { LIVE_CLOSE, closeWith, outcomeClose } from "../live/close-codes.js";
import { Downsampler24To16 } from "../live/pcm.js";
import type { LiveClient, LiveSession } from "../live/session.js";
import { requireWebSocketUpgrade } from "../live/upgrade.js";
import type { LiveRouteOptions } from "./live.js";

const realtimeQuery = z.object({ intent: z.literal("transcription") });

/** The client events we understand (OpenAI Realtime API, transcription sessions). */
const clientEvent = z.discriminatedUnion("type", [
  z.looseObject({
    type: z.literal("transcription_session.update"),
    session: z
      .looseObject({
        input_audio_format: z.string().optional(),
        input_audio_transcription: z
          .looseObject({ model: z.string().optional(), language: z.string().nullable().optional(), prompt: z.string().optional() })
          .nullable()
          .optional(),
      })
      .optional(),
  }),
  z.looseObject({ type: z.literal("input_audio_buffer.append"), audio: z.string() }),
  z.looseObject({ type: z.literal("input_audio_buffer.commit") }),
  z.looseObject({ type: z.literal("input_audio_buffer.clear") }),
]);

const id = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, "").slice(0, 20)}`;

/**
 * GET /v1/realtime?intent=transcription (docs/api.md "Realtime API", decision 0030): the
 * OpenAI Realtime API's transcription session over our live path, for its existing
 * clients. API key as `Authorization: Bearer`. Audio is pcm16 at 24 kHz, base64; each
 * commit ends an item, whose settled words arrive as `delta`s and its whole text as
 * `completed`. The session is saved as a transcription, like one from the live page.
 */
export async function realtimeRoutes(app: FastifyInstance, options: LiveRouteOptions): Promise<void> {
  app.get("/v1/realtime", { websocket: true, schema: { hide: true, querystring: realtimeQuery }, preHandler: requireWebSocketUpgrade }, (socket: WebSocket, request) => {
    const userId = request.user!.id;
    const sessionId = id("sess");
    const send = (event: Record<string, unknown>) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ event_id: id("event"), ...event }));
    };
    const fail = (code: string, message: string, eventId?: string) =>
      send({ type: "error", error: { type: "invalid_request_error", code, message, param: null, event_id: eventId ?? null } });

    let settings = { model: "whisper-base", language: "", prompt: "" };
    const describe = () => ({
      id: sessionId,
      object: "realtime.transcription_session",
      input_audio_format: "pcm16",
      input_audio_transcription: { model: settings.model, language: settings.language || null, prompt: settings.prompt },
      turn_detection: null,
      modalities: ["text"],
    });
    send({ type: "transcription_session.created", session: describe() });

    let session: LiveSession | undefined;
    let client: LiveClient | undefined;
    const downsample = new Downsampler24To16();
    let itemId = id("item");
    let previousItemId: string | null = null;
    let itemText = "";
    let itemHasAudio = false;
    /** Items committed whose words are not all settled yet, oldest first. */
    const awaiting: Array<{ itemId: string }> = [];
    let clientGone = false;

    const complete = (item: string, text: string) =>
      send({ type: "conversation.item.input_audio_transcription.completed", item_id: item, content_index: 0, transcript: text.trim() });

    const open = () => {
      if (session) return session;
      client = {
          ready: () => {},
          words: ({ settled, flushed }) => {
            const delta = settled.map((w) => w.text).join("");
            const target = awaiting[0]?.itemId ?? itemId;
            if (delta) {
              send({ type: "conversation.item.input_audio_transcription.delta", item_id: target, content_index: 0, delta });
              itemText += delta;
            }
            if (flushed && awaiting.length > 0) {
              complete(awaiting.shift()!.itemId, itemText);
              itemText = "";
            }
          },
          ended: (outcome) => {
            if (clientGone) return;
            if (outcome.kind === "stopped") {
              if (itemHasAudio || itemText) complete(awaiting.shift()?.itemId ?? itemId, itemText);
            } else if (outcome.kind !== "suspended" && outcome.kind !== "moved") {
              send({ type: "error", error: { type: "server_error", code: outcome.kind, message: outcome.message, param: null, event_id: null } });
            }
            const { code, reason } = outcomeClose(outcome);
            closeWith(socket, code, reason);
          },
          replaced: () => {},
      };
      // The Realtime API has no resuming: a client that goes ends its session, which is saved.
      session = options.sessions.open({ userId, model: settings.model, language: settings.language, diarize: false }, client, { resumeMs: 0 });
      return session;
    };

    socket.on("message", (data: Buffer, isBinary: boolean) => {
      let parsed: z.infer<typeof clientEvent> | undefined;
      if (!isBinary) {
        try {
          const result = clientEvent.safeParse(JSON.parse(data.toString("utf8")));
          parsed = result.success ? result.data : undefined;
        } catch {
          parsed = undefined;
        }
      }
      if (!parsed) {
        fail("invalid_event", "Expected a JSON client event: transcription_session.update, input_audio_buffer.append, .commit or .clear");
        if (client) session?.detach(client);
        return closeWith(socket, LIVE_CLOSE.badFrame, "Not a Realtime API client event");
      }
      const eventId = typeof parsed.event_id === "string" ? parsed.event_id : undefined;
      switch (parsed.type) {
        case "transcription_session.update": {
          const format = parsed.session?.input_audio_format;
          if (format && format !== "pcm16") return fail("unsupported_format", `input_audio_format ${format} is not supported; use pcm16`, eventId);
          if (session) return fail("session_started", "The session's settings cannot change once audio has arrived", eventId);
          const transcription = parsed.session?.input_audio_transcription;
          settings = {
            model: transcription?.model?.startsWith("whisper-") ? transcription.model : settings.model,
            language: transcription?.language ?? settings.language,
            prompt: transcription?.prompt ?? settings.prompt,
          };
          return send({ type: "transcription_session.updated", session: describe() });
        }
        case "input_audio_buffer.append": {
          const audio = Buffer.from(parsed.audio, "base64");
          if (audio.byteLength === 0 && parsed.audio.length > 0) return fail("invalid_audio", "audio is not base64", eventId);
          itemHasAudio = true;
          open().audio(downsample.push(audio));
          return;
        }
        case "input_audio_buffer.commit": {
          if (!itemHasAudio) return fail("input_audio_buffer_commit_empty", "The input audio buffer is empty", eventId);
          send({ type: "input_audio_buffer.committed", previous_item_id: previousItemId, item_id: itemId });
          awaiting.push({ itemId });
          previousItemId = itemId;
          itemId = id("item");
          itemHasAudio = false;
          open().flush();
          return;
        }
        case "input_audio_buffer.clear":
          return send({ type: "input_audio_buffer.cleared" });
      }
    });
    socket.on("close", () => {
      clientGone = true;
      if (client) session?.detach(client);
    });
  });
}
