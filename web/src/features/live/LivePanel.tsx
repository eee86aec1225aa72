import { Link } from "@tanstack/react-router";
import { useEffect, useRef, useState } from "react";
import { Badge, Button, Card, CardDescription, CardHeader, CardTitle, Input, Label, Select, SelectContent, SelectItem, SelectTrigger } from "../../components/ui";
import { type LiveConnection, type LiveServerMessage, type LiveWord, startLive } from "./live-client";

type Phase = "idle" | "connecting" | "live" | "paused" | "stopping" | "done" | "failed";

// Local models only: live decoding runs on this server's live workers (decision 0030).
const MODELS = [
  { id: "whisper-base", label: "Whisper base (multilingual)" },
  { id: "whisper-tiny.en", label: "Whisper tiny.en (English only, fastest)" },
];
const LANGUAGES = [
  { id: "auto", label: "Detect" },
  { id: "en", label: "English" },
  { id: "de", label: "German" },
  { id: "fr", label: "French" },
  { id: "es", label: "Spanish" },
  { id: "it", label: "Italian" },
  { id: "nl", label: "Dutch" },
  { id: "pt", label: "Portuguese" },
];

/** Why the server closed, in words (close codes: docs/api.md "Live transcription"). */
function closeMessage(code: number, reason: string): string | undefined {
  if (code === 1000) return undefined;
  if (code === 4429) return "Every live transcription slot is busy right now. Try again in a moment.";
  if (code === 1011) return "Live transcription stopped on the server. What was recorded is kept and transcribed.";
  if (code === 4400) return `The recording was refused: ${reason}`;
  return reason ? `The connection closed: ${reason}` : "The connection to the server was lost.";
}

function clock(seconds: number): string {
  const s = Math.floor(seconds);
  return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
}

export function LivePanel() {
  const [model, setModel] = useState(MODELS[0]!.id);
  const [language, setLanguage] = useState("en");
  const [diarize, setDiarize] = useState(false);
  const [phase, setPhase] = useState<Phase>("idle");
  const [settled, setSettled] = useState<LiveWord[]>([]);
  const [partial, setPartial] = useState<LiveWord[]>([]);
  const [level, setLevel] = useState(0);
  const [elapsed, setElapsed] = useState(0);
  const [error, setError] = useState<string | undefined>();
  const [transcriptionId, setTranscriptionId] = useState<string | null>(null);
  const connection = useRef<LiveConnection | undefined>(undefined);

  useEffect(() => () => connection.current?.close(), []);

  const [reconnecting, setReconnecting] = useState(false);

  const onMessage = (message: LiveServerMessage) => {
    if (message.type === "ready") setPhase("live");
    else if (message.type === "ack") return;
    else if (message.type === "words") {
      if (message.settled.length > 0) setSettled((words) => [...words, ...message.settled]);
      setPartial(message.partial);
    } else if (message.type === "stopped") {
      setPartial([]);
      setTranscriptionId(message.transcription_id);
      setPhase("done");
    } else {
      setTranscriptionId(message.transcription_id);
      setError(message.message);
      setPhase("failed");
    }
  };

  const start = async () => {
    setError(undefined);
    setSettled([]);
    setPartial([]);
    setElapsed(0);
    setTranscriptionId(null);
    setPhase("connecting");
    try {
      connection.current = await startLive(
        { model, language, diarize },
        {
          onMessage,
          onLevel: setLevel,
          onSent: setElapsed,
          onReconnecting: setReconnecting,
          onClosed: (code, reason) => {
            setLevel(0);
            setReconnecting(false);
            const why = closeMessage(code, reason);
            if (why) {
              setError((current) => current ?? why);
              setPhase((current) => (current === "done" ? current : "failed"));
            }
          },
        },
      );
    } catch (reason) {
      setError(reason instanceof Error && reason.name === "NotAllowedError" ? "The browser did not allow the microphone." : String(reason));
      setPhase("failed");
    }
  };

  const running = phase === "live" || phase === "paused";
  return (
    <div className="live">
      <Card>
        <CardHeader>
          <CardTitle>Start live transcription</CardTitle>
          <CardDescription>Speak, and the words appear as you talk. Stop, and the recording is saved as a transcription.</CardDescription>
        </CardHeader>
        <div className="live-settings">
          <div className="field">
            <Label htmlFor="live-model">Model</Label>
            <Select value={model} onValueChange={setModel} disabled={phase !== "idle" && phase !== "done" && phase !== "failed"}>
              <SelectTrigger id="live-model" />
              <SelectContent>
                {MODELS.map((m) => (
                  <SelectItem key={m.id} value={m.id}>
                    {m.label}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>
          <div className="field">
            <Label htmlFor="live-language">Language</Label>
            <Select value={language} onValueChange={setLanguage} disabled={phase !== "idle" && phase !== "done" && phase !== "failed"}>
              <SelectTrigger id="live-language" />
              <SelectContent>
                {LANGUAGES.map((l) => (
                  <SelectItem key={l.id} value={l.id}>
                    {l.label}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>
          <div className="field field-inline">
            <Input id="live-speakers" type="checkbox" checked={diarize} onChange={(event) => setDiarize(event.target.checked)} />
            <Label htmlFor="live-speakers">Identify speakers in the saved transcript</Label>
          </div>
        </div>
        <div className="live-controls">
          {running || phase === "connecting" || phase === "stopping" ? null : (
            <Button variant="primary" onClick={() => void start()}>
              Start live transcription
            </Button>
          )}
          {phase === "live" ? (
            <Button
              onClick={() => {
                connection.current?.pause();
                setPhase("paused");
              }}
            >
              Pause
            </Button>
          ) : null}
          {phase === "paused" ? (
            <Button
              onClick={() => {
                connection.current?.resume();
                setPhase("live");
              }}
            >
              Resume
            </Button>
          ) : null}
          {running ? (
            <Button
              variant="danger"
              onClick={() => {
                connection.current?.stop();
                setPhase("stopping");
              }}
            >
              Stop
            </Button>
          ) : null}
          {phase === "connecting" ? <Badge variant="info">Connecting…</Badge> : null}
          {phase === "live" ? <Badge variant="danger">Live</Badge> : null}
          {phase === "paused" ? <Badge variant="warning">Paused</Badge> : null}
          {phase === "stopping" ? <Badge variant="info">Finishing…</Badge> : null}
          {reconnecting ? <Badge variant="warning">Reconnecting… (the audio is kept)</Badge> : null}
          <span className="live-elapsed" role="timer" aria-label="Elapsed time" data-testid="live-elapsed">
            {clock(elapsed)}
          </span>
          {/* biome-ignore lint/a11y/useSemanticElements: the level bar is styled like the app's progress bars, which a native <meter> cannot be in every browser */}
          <div
            className="live-meter"
            role="meter"
            aria-label="Microphone level"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.round(Math.min(1, level * 4) * 100)}
          >
            <div className="live-meter-bar" style={{ width: `${Math.round(Math.min(1, level * 4) * 100)}%` }} />
          </div>
        </div>
      </Card>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {transcriptionId ? (
        <p role="status">
          Saved. The full-quality transcript replaces the live text when it is ready:{" "}
          <Link to="/transcript/$id" params={{ id: transcriptionId }}>
            open the transcript
          </Link>
          .
        </p>
      ) : null}
      <div className="live-transcript" data-testid="live-transcript" aria-live="polite">
        {settled.map((word, index) => (
          <span key={`s${index}`} className="live-word-settled">
            {word.text}
          </span>
        ))}
        {partial.map((word, index) => (
          <span key={`p${index}`} className="live-word-partial" data-testid="live-partial">
            {word.text}
          </span>
        ))}
        {settled.length === 0 && partial.length === 0 ? <span className="muted">{running ? "Listening…" : "The words appear here."}</span> : null}
      </div>
    </div>
  );
}
