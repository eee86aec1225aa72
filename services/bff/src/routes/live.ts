import type { FastifyInstance } from "fastify";
import type { WebSocket } from "ws";
import { z } from "zod";
import { sendApiError } from "../http/api-error.js";
import { CROSS_SITE_MESSAGE, isSameOriginRequest } from "../http/csrf.js";
import { sessionCookies } from "../http/session.js";
import { LIVE_CLOSE, closeWith, MAX_FRAME_BYTES, outcomeClose } from "../live/close-codes.js";
import type { LiveClient, LiveSession, LiveWordOut } from "../live/session.js";
import type { LiveSessions } from "../live/sessions.js";
import { requireWebSocketUpgrade } from "../live/upgrade.js";

export interface LiveRouteOptions {
  sessions: LiveSessions;
  trustedOrigins: string[];
}

const liveQuery = z.object({
  model: z.string().min(1).max(100).default("whisper-base"),
  /** A language code, or "auto". */
  language: z.string().min(2).max(10).default("auto"),
  diarize: z.enum(["true", "false"]).default("false"),
  name: z.string().trim().min(1).max(200).optional(),
  /** Resume this session (after a dropped connection or a BFF restart) instead of starting one. */
  resume: z.uuid().optional(),
});

/** How often the stored audio offset is acknowledged to the client. */
const ACK_MS = 250;

/**
 * GET /api/v1/live (docs/api.md "Live transcription", decisions 0030 and 0037): a
 * WebSocket. The client sends binary frames of 16 kHz mono 16-bit little-endian PCM and
 * `{"type":"stop"}`; the BFF answers `ready`, `ack` (the audio bytes stored: the client may
 * forget them), `words` (settled words once, the partial tail each time) and `stopped`
 * with the transcription the recording became. A client whose connection dropped
 * reconnects with `resume=<session_id>` and sends its audio from the `audio_bytes` of the
 * new `ready`. A session cookie must come from our own origin (the rule of http/csrf.ts,
 * applied to the upgrade: a WebSocket handshake is a GET, which the CSRF hook lets
 * through); an API key works too.
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
      const userId = request.user!.id;
      const send = (message: Record<string, unknown>) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      };
      let acked = -1;
      const ack = setInterval(() => {
        if (!session || session.audioBytes === acked) return;
        acked = session.audioBytes;
        send({ type: "ack", audio_bytes: acked });
      }, ACK_MS);
      const client: LiveClient = {
        ready: ({ sessionId, model, maxSeconds, audioBytes, resumed, settled }) => {
          acked = audioBytes;
          send({ type: "ready", session_id: sessionId, model, max_seconds: maxSeconds, audio_bytes: audioBytes, resumed, settled: settled.map(wire) });
        },
        words: ({ settled, partial, audioSeconds }) =>
          send({ type: "words", settled: settled.map(wire), partial: partial.map(wire), audio_seconds: audioSeconds }),
        ended: (outcome) => {
          clearInterval(ack);
          if (outcome.kind === "stopped") {
            send({
              type: "stopped",
              reason: outcome.reason,
              audio_seconds: outcome.audioSeconds,
              transcription_id: outcome.transcriptionId ?? null,
              file_id: outcome.fileId ?? null,
            });
          } else if (outcome.kind !== "suspended" && outcome.kind !== "moved") {
            send({ type: "error", code: outcome.kind, message: outcome.message, transcription_id: ("transcriptionId" in outcome && outcome.transcriptionId) || null });
          }
          const { code, reason } = outcomeClose(outcome);
          closeWith(socket, code, reason);
        },
        replaced: () => {
          clearInterval(ack);
          closeWith(socket, LIVE_CLOSE.replaced, "This live session was resumed on another connection");
        },
      };

      let session: LiveSession | undefined;
      // Frames that arrive while a session is looked up on disk are handled once it is there.
      const early: Array<[Buffer, boolean]> = [];
      const receive = (data: Buffer, isBinary: boolean) => {
        if (!session) return void early.push([data, isBinary]);
        if (isBinary) {
          if (data.byteLength % 2 !== 0 || data.byteLength > MAX_FRAME_BYTES) {
            session.detach(client);
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
        session.detach(client);
        closeWith(socket, LIVE_CLOSE.badFrame, 'Send binary PCM frames or {"type":"stop"}');
      };
      let closed = false;
      socket.on("message", receive);
      socket.on("close", () => {
        closed = true;
        clearInterval(ack);
        // The client vanished (or closed without stop): its slot is freed; the session waits for it to resume.
        session?.detach(client);
      });

      const attach = (found: LiveSession) => {
        session = found;
        if (closed) return found.detach(client);
        for (const [data, isBinary] of early.splice(0)) receive(data, isBinary);
      };
      if (query.resume) {
        void options.sessions.resume(query.resume, userId, client).then((found) => {
          if (found) return attach(found);
          clearInterval(ack);
          send({ type: "error", code: "not_found", message: "No open live session by that id", transcription_id: null });
          closeWith(socket, LIVE_CLOSE.noSession, "No open live session by that id: it ended, or it is not yours");
        });
      } else {
        attach(
          options.sessions.open(
            {
              userId,
              model: query.model,
              language: query.language === "auto" ? "" : query.language,
              diarize: query.diarize === "true",
              name: query.name,
            },
            client,
          ),
        );
      }
    },
  );
}

function wire(word: LiveWordOut) {
  return { text: word.text, start: word.start, end: word.end };
}
