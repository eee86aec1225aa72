import type { FastifyReply, FastifyRequest } from "fastify";
import { sendApiError } from "../http/api-error.js";

export const UPGRADE_REQUIRED_MESSAGE = "This endpoint is a WebSocket: connect with an Upgrade: websocket request";

/**
 * The live endpoints only speak WebSocket; a plain GET gets 426 with the boundary's JSON
 * error body (the OpenAI shape on /v1) instead of the WebSocket plugin's empty 404.
 */
export async function requireWebSocketUpgrade(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.headers.upgrade?.toLowerCase() !== "websocket") {
    reply.header("upgrade", "websocket");
    await sendApiError(reply, 426, "upgrade_required", UPGRADE_REQUIRED_MESSAGE);
  }
}
