// The live page's connection: microphone → AudioWorklet (16 kHz PCM frames) → the BFF's
// WebSocket (/api/v1/live, docs/api.md "Live transcription") → words back.

export interface LiveWord {
  text: string;
  start: number;
  end: number;
}

export type LiveServerMessage =
  | { type: "ready"; session_id: string; model: string; max_seconds: number }
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
}

/** What the page holds while live: pause/resume (frames dropped while paused), stop, cancel. */
export interface LiveConnection {
  pause(): void;
  resume(): void;
  stop(): void;
  close(): void;
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
  const socket = new WebSocket(`${scheme}//${location.host}/api/v1/live?${query.toString()}`);
  socket.binaryType = "arraybuffer";

  let paused = false;
  let ready = false;
  let stopped = false;
  let sentBytes = 0;
  // Frames captured before the session is ready, or while the socket's buffer is backed up
  // (a slow or briefly lost network): kept in order and sent when it drains.
  const backlog: ArrayBuffer[] = [];
  const flush = () => {
    while (backlog.length > 0 && socket.readyState === WebSocket.OPEN && socket.bufferedAmount < 256 * 1024) {
      const frame = backlog.shift()!;
      socket.send(frame);
      sentBytes += frame.byteLength;
      callbacks.onSent(sentBytes / 32_000);
    }
  };
  const drain = window.setInterval(flush, 100);

  capture.port.onmessage = (event: MessageEvent<{ pcm: ArrayBuffer; level: number }>) => {
    callbacks.onLevel(paused ? 0 : event.data.level);
    if (paused || stopped) return;
    backlog.push(event.data.pcm);
    if (ready) flush();
  };

  const release = () => {
    window.clearInterval(drain);
    capture.port.onmessage = null;
    source.disconnect();
    capture.disconnect();
    for (const track of stream.getTracks()) track.stop();
    void context.close();
  };

  socket.onmessage = (event: MessageEvent<string>) => {
    const message = JSON.parse(event.data) as LiveServerMessage;
    if (message.type === "ready") {
      ready = true;
      flush();
    }
    callbacks.onMessage(message);
  };
  socket.onclose = (event) => {
    release();
    callbacks.onClosed(event.code, event.reason);
  };

  return {
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      // What was captured goes out first, then stop.
      const finish = () => {
        flush();
        if (backlog.length > 0) return void window.setTimeout(finish, 100);
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "stop" }));
        source.disconnect();
        for (const track of stream.getTracks()) track.stop();
      };
      finish();
    },
    close: () => {
      stopped = true;
      socket.close();
      release();
    },
  };
}
