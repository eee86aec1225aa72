import type { Client } from "@connectrpc/connect";
import type { Logger } from "@transcribe/platform";
import type { LiveTranscriptionService } from "@transcribe/proto/live/v1/live";
import type { FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import { z } from "zod";
import type { DeveloperPipeline } from "../developer/pipeline.js";
import { sendApiError } from "../http/api-error.js";
import { CROSS_SITE_MESSAGE, isSameOriginRequest } from "../http/csrf.js";
import { sessionCookies } from "../http/session.js";
import { LIVE_CLOSE, closeWith, MAX_FRAME_BYTES, outcomeClose } from "../live/close-codes.js";
import { LiveSession, type LiveWordOut } from "../live/session.js";
import { requireWebSocketUpgrade } from "../live/upgrade.js";

export interface LiveRouteOptions {
  live: Client<typeof LiveTranscriptionService>;
  pipeline: DeveloperPipeline;
  spoolDir: string;
  maxSeconds: number;
  trustedOrigins: string[];
  logger: Logger;
}

const liveQuery = z.object({
  model: z.string().min(1).max(100).default("whisper-base"),
  /** A language code, or "auto". */
  language: z.string().min(2).max(10).default("auto"),
  diarize: z.enum(["true", "false"]).default("false"),
  name: z.string().trim().min(1).max(200).optional(),
});

/**
 * GET /api/v1/live (docs/api.md "Live transcription", decision 0030): a WebSocket. The
 * client sends binary frames of 16 kHz mono 16-bit little-endian PCM and `{"type":"stop"}`;
 * the BFF answers `ready`, `words` (settled words once, the partial tail each time) and
 * `stopped` with the transcription the recording became. A session cookie must come from
 * our own origin (the rule of http/csrf.ts, applied to the upgrade: a WebSocket handshake
 * is a GET, which the CSRF hook lets through); an API key works too.
 */
export async function liveRoutes(app: FastifyInstance, options: LiveRouteOptions): Promise<void> {
  const trusted = new Set(options.trustedOrigins.map((o) => new URL(o).origin));
  app.get(
    "/api/v1/live",
    {
      websocket: true,
      schema: { hide: true, querystring: liveQuery },
      preHandler: async (request, reply) => {
        await requireWebSocketUpgrade(request, reply);
        if (reply.sent) return;
        if (sessionCookies(request.headers.cookie) && !isSameOriginRequest(request.headers, request.host, trusted)) {
          request.log.warn({ origin: request.headers.origin }, "cross-site live session refused");
          return sendApiError(reply, 403, "permission_denied", CROSS_SITE_MESSAGE);
        }
      },
    },
    (socket: WebSocket, request) => {
      const query = liveQuery.parse(request.query);
      const send = (message: Record<string, unknown>) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      };
      const session = new LiveSession(
        {
          userId: request.user!.id,
          model: query.model,
          language: query.language === "auto" ? "" : query.language,
          diarize: query.diarize === "true",
          name: query.name,
          live: options.live,
          pipeline: options.pipeline,
          spoolDir: options.spoolDir,
          maxSeconds: options.maxSeconds,
          logger: options.logger,
        },
        {
          ready: ({ sessionId, model, maxSeconds }) => send({ type: "ready", session_id: sessionId, model, max_seconds: maxSeconds }),
          words: ({ settled, partial, audioSeconds }) =>
            send({ type: "words", settled: settled.map(wire), partial: partial.map(wire), audio_seconds: audioSeconds }),
        },
      );
      let clientGone = false;
      socket.on("message", (data: Buffer, isBinary: boolean) => {
        if (isBinary) {
          if (data.byteLength % 2 !== 0 || data.byteLength > MAX_FRAME_BYTES) {
            session.cancel();
            return closeWith(socket, LIVE_CLOSE.badFrame, "Audio frames are 16-bit PCM: an even number of bytes, at most 1 MiB");
          }
          session.audio(new Uint8Array(data));
          return;
        }
        let message: unknown;
        try {
          message = JSON.parse(data.toString("utf8"));
        } catch {
          message = undefined;
        }
        if ((message as { type?: unknown } | undefined)?.type === "stop") return session.stop();
        session.cancel();
        closeWith(socket, LIVE_CLOSE.badFrame, 'Send binary PCM frames or {"type":"stop"}');
      });
      socket.on("close", () => {
        clientGone = true;
        // The client vanished (or closed without stop): free the slot; what was heard is saved.
        session.cancel();
      });
      void session.done.then((outcome) => {
        if (clientGone) return;
        if (outcome.kind === "stopped") {
          send({
            type: "stopped",
            reason: outcome.reason,
            audio_seconds: outcome.audioSeconds,
            transcription_id: outcome.transcriptionId ?? null,
            file_id: outcome.fileId ?? null,
          });
        } else {
          send({ type: "error", code: outcome.kind, message: outcome.message, transcription_id: ("transcriptionId" in outcome && outcome.transcriptionId) || null });
        }
        const { code, reason } = outcomeClose(outcome);
        closeWith(socket, code, reason);
      });
    },
  );
}

function wire(word: LiveWordOut) {
  return { text: word.text, start: word.start, end: word.end };
}
