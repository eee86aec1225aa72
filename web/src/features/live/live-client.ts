// The live page's connection: microphone → AudioWorklet (16 kHz PCM frames) → the BFF's
// WebSocket (/api/v1/live, docs/api.md "Live transcription") → words back.

export interface LiveWord {
  text: string;
  start: number;
  end: number;
}

export type LiveServerMessage =
  | { type: "ready"; session_id: string; model: string; max_seconds: number; audio_bytes: number; resumed: boolean; settled: LiveWord[] }
  | { type: "ack"; audio_bytes: number }
  | { type: "words"; settled: LiveWord[]; partial: LiveWord[]; audio_seconds: number }
  | { type: "stopped"; reason: string; audio_seconds: number; transcription_id: string | null; file_id: string | null }
  | { type: "error"; code: string; message: string; transcription_id: string | null };

export interface LiveSettings {
  model: string;
  language: string;
  diarize: boolean;
}

export interface LiveCallbacks {
  onMessage(message: LiveServerMessage): void;
  onLevel(level: number): void;
  onSent(seconds: number): void;
  onClosed(code: number, reason: string): void;
  /** The connection dropped and the page is resuming the session (true), or has resumed it (false). */
  onReconnecting(reconnecting: boolean): void;
}

/** What the page holds while live: pause/resume (frames dropped while paused), stop, cancel. */
export interface LiveConnection {
  pause(): void;
  resume(): void;
  stop(): void;
  close(): void;
}

/** Closes after which there is nothing to resume (docs/api.md "Live transcription"). */
const FINAL_CLOSES = new Set([1000, 1011, 4400, 4404, 4409, 4429]);
/** How long the page tries to resume a dropped session (the BFF waits LIVE_RESUME_SECONDS, 30 s by default). */
const RESUME_WINDOW_MS = 30_000;

interface Frame {
  /** Byte offset of the frame in the session's audio. */
  offset: number;
  pcm: ArrayBuffer;
}

export async function startLive(settings: LiveSettings, callbacks: LiveCallbacks): Promise<LiveConnection> {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true } });
  const context = new AudioContext({ sampleRate: 16_000 });
  await context.audioWorklet.addModule("/live-capture.worklet.js");
  const source = context.createMediaStreamSource(stream);
  const capture = new AudioWorkletNode(context, "live-capture");
  source.connect(capture);

  const query = new URLSearchParams({ model: settings.model, language: settings.language, diarize: String(settings.diarize) });
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";

  let socket: WebSocket;
  let sessionId: string | undefined;
  let paused = false;
  let ready = false;
  let stopped = false;
  let stopSent = false;
  let finished = false;
  let lostAt: number | undefined;
  let captured = 0;
  /** Where the next frame to send starts: frames before it are on the wire or stored. */
  let sendFrom = 0;
  // Every frame the BFF has not acknowledged as stored, in order: sent when the socket
  // drains (a slow network), and sent again from the BFF's offset after a reconnect (a
  // lost network, the BFF restarting), so the recording has no hole and no duplicate.
  let frames: Frame[] = [];
  const forget = (stored: number) => {
    frames = frames.filter((f) => f.offset + f.pcm.byteLength > stored);
    const first = frames[0];
    if (first && first.offset < stored) frames[0] = { offset: stored, pcm: first.pcm.slice(stored - first.offset) };
  };
  const flush = () => {
    if (!ready) return;
    for (const frame of frames) {
      if (socket.readyState !== WebSocket.OPEN || socket.bufferedAmount >= 256 * 1024) return;
      if (frame.offset < sendFrom) continue;
      socket.send(frame.pcm);
      sendFrom = frame.offset + frame.pcm.byteLength;
      callbacks.onSent(sendFrom / 32_000);
    }
    if (stopped && !stopSent && sendFrom === captured && socket.readyState === WebSocket.OPEN) {
      stopSent = true;
      socket.send(JSON.stringify({ type: "stop" }));
    }
  };
  const drain = window.setInterval(flush, 100);

  capture.port.onmessage = (event: MessageEvent<{ pcm: ArrayBuffer; level: number }>) => {
    callbacks.onLevel(paused ? 0 : event.data.level);
    if (paused || stopped) return;
    frames.push({ offset: captured, pcm: event.data.pcm });
    captured += event.data.pcm.byteLength;
    flush();
  };

  const release = () => {
    finished = true;
    window.clearInterval(drain);
    capture.port.onmessage = null;
    source.disconnect();
    capture.disconnect();
    for (const track of stream.getTracks()) track.stop();
    void context.close();
  };

  const connect = () => {
    const resume = sessionId ? `&resume=${encodeURIComponent(sessionId)}` : "";
    socket = new WebSocket(`${scheme}//${location.host}/api/v1/live?${query.toString()}${resume}`);
    socket.binaryType = "arraybuffer";
    socket.onmessage = (event: MessageEvent<string>) => {
      const message = JSON.parse(event.data) as LiveServerMessage;
      if (message.type === "ack") return forget(message.audio_bytes);
      if (message.type === "ready") {
        const resumed = sessionId !== undefined;
        sessionId = message.session_id;
        forget(message.audio_bytes);
        sendFrom = message.audio_bytes;
        ready = true;
        if (resumed) {
          lostAt = undefined;
          callbacks.onReconnecting(false);
        }
        flush();
        if (resumed) return;
      }
      if (message.type === "stopped" || message.type === "error") finished = true;
      callbacks.onMessage(message);
    };
    socket.onclose = (event) => {
      ready = false;
      const canResume = sessionId !== undefined && !finished && !FINAL_CLOSES.has(event.code);
      if (canResume) {
        lostAt ??= Date.now();
        if (Date.now() - lostAt < RESUME_WINDOW_MS) {
          callbacks.onReconnecting(true);
          window.setTimeout(connect, Math.min(2_000, 250 + (Date.now() - lostAt) / 4));
          return;
        }
      }
      release();
      callbacks.onClosed(event.code, canResume ? "The connection was lost" : event.reason);
    };
  };
  connect();

  return {
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
    },
    stop: () => {
      if (stopped) return;
      // What was captured goes out first, then stop (flush sends it once all is sent).
      stopped = true;
      source.disconnect();
      for (const track of stream.getTracks()) track.stop();
      flush();
    },
    close: () => {
      stopped = true;
      finished = true;
      socket.close();
      release();
    },
  };
}
