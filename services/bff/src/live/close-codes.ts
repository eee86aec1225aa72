import type { WebSocket } from "ws";
import type { LiveOutcome } from "./session.js";

/** The largest audio frame a client may send (the live worker's limit too). */
export const MAX_FRAME_BYTES = 1 << 20;

/**
 * WebSocket close codes of the live endpoints (docs/api.md): 1000 after `stopped`, the
 * 4000s for the client's own doing or a refusal, 1011 when the server side failed.
 */
export const LIVE_CLOSE = {
  normal: 1000,
  /** A frame that is neither PCM (even length, ≤ 1 MiB) nor a known JSON message. */
  badFrame: 4400,
  /** Every live slot is busy: refused at once, nothing saved. */
  busy: 4429,
  /** The live worker failed mid-session; the audio so far is kept and transcribed in batch. */
  workerFailed: 1011,
  /** This BFF is restarting: the session is kept; reconnect with `resume` (decision 0037). */
  restarting: 1012,
  /** `resume` names no open session of the caller's (it ended, was saved, or is not theirs). */
  noSession: 4404,
  /** The session was resumed on another connection; this one is finished with. */
  replaced: 4409,
} as const;

export function outcomeClose(outcome: LiveOutcome): { code: number; reason: string } {
  switch (outcome.kind) {
    case "stopped":
      return { code: LIVE_CLOSE.normal, reason: "stopped" };
    case "refused":
      return { code: LIVE_CLOSE.busy, reason: "No live transcription slot is free; try again in a moment" };
    case "invalid":
      return { code: LIVE_CLOSE.badFrame, reason: outcome.message };
    case "failed":
      return { code: LIVE_CLOSE.workerFailed, reason: "Live transcription failed; the audio so far is kept and transcribed" };
    case "suspended":
      return { code: LIVE_CLOSE.restarting, reason: "The server is restarting; reconnect to resume the session" };
    case "moved":
      return { code: LIVE_CLOSE.replaced, reason: "This live session was resumed on another connection" };
  }
}

/** Closes with a reason that fits the protocol's 123 bytes. */
export function closeWith(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState !== socket.OPEN) return;
  let text = reason;
  while (Buffer.byteLength(text) > 123) text = text.slice(0, -1);
  socket.close(code, text);
}
