// The transcript page's speakers: each with its colour, renamed in place (the new name is
// in every export at once), shown or hidden in the segment list, and the way to identify
// speakers again (or for the first time) without transcribing again.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { toast } from "sonner";
import { Badge, Button, Card, Dialog, DialogClose, DialogContent, DialogFooter, FieldError, Input } from "../../components/ui";
import { diarizeTranscription, queryKeys, renameSpeaker } from "../../lib/api/product";
import { unmatchSpeaker } from "../../lib/api/voices";
import type { Speaker, TranscriptionDetail } from "../../lib/api/generated/zod.gen";
import { speakerNameSchema } from "../../lib/form-rules";
import { speakerColor } from "./colors";
import "./speakers.css";
import { DiarizationFields, diarizationSettings, type DiarizationChoice } from "./DiarizationFields";
import { useSpeakerView } from "./speaker-view";

export function SpeakerPanel({ transcript }: { transcript: TranscriptionDetail }) {
  const { speakers, isShown, toggle, showAll, hidden } = useSpeakerView();
  const [rediarizeOpen, setRediarizeOpen] = useState(false);
  const result = transcript.result;
  const canRun = Boolean(result) && (transcript.status === "completed" || transcript.status === "failed");
  if (!result) return null;
  return (
    <Card className="speaker-panel" aria-label="Speakers">
      <div className="speaker-panel-header">
        <h2 className="speaker-panel-title">Speakers</h2>
        <Button size="sm" onClick={() => setRediarizeOpen(true)} disabled={!canRun}>
          {speakers.length ? "Identify speakers again" : "Identify speakers"}
        </Button>
      </div>
      {result.speakersNote ? (
        <p className="muted" role="note">
          {result.speakersNote}
        </p>
      ) : null}
      {speakers.length === 0 && !result.speakersNote ? <p className="muted">Speakers were not identified in this transcript.</p> : null}
      {speakers.length > 0 ? (
        <ul className="speaker-list">
          {speakers.map((speaker) => (
            <SpeakerRow key={speaker.id} transcriptionId={transcript.id} speaker={speaker} shown={isShown(speaker.id)} onToggle={() => toggle(speaker.id)} />
          ))}
        </ul>
      ) : null}
      {hidden.size > 0 ? (
        <Button size="sm" variant="ghost" onClick={showAll}>
          Show all speakers
        </Button>
      ) : null}
      <RediarizeDialog id={transcript.id} open={rediarizeOpen} onOpenChange={setRediarizeOpen} />
    </Card>
  );
}

function SpeakerRow({ transcriptionId, speaker, shown, onToggle }: { transcriptionId: string; speaker: Speaker; shown: boolean; onToggle: () => void }) {
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(speaker.name);
  const [error, setError] = useState<string>();
  const ids = { input: useId(), error: useId() };
  const rename = useMutation({
    mutationFn: (next: string) => renameSpeaker(transcriptionId, speaker.id, next),
    onSuccess: () => {
      toast.success("Speaker renamed");
      setEditing(false);
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcription(transcriptionId) });
    },
    onError: (err) => setError(err.message),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = speakerNameSchema.safeParse(name);
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setError(undefined);
    rename.mutate(parsed.data);
  };
  return (
    <li className="speaker-row" data-speaker={speaker.id}>
      <span className="speaker-dot" aria-hidden="true" style={{ background: speakerColor(speaker.id) }} />
      {editing ? (
        <form className="speaker-rename" onSubmit={submit} noValidate aria-label={`Rename ${speaker.name}`}>
          <Input
            id={ids.input}
            aria-label="Speaker name"
            value={name}
            autoFocus
            maxLength={200}
            invalid={error !== undefined}
            aria-describedby={error ? ids.error : undefined}
            onChange={(event) => {
              setName(event.target.value);
              setError(undefined);
            }}
            onKeyDown={(event) => {
              if (event.key === "Escape") {
                setEditing(false);
                setName(speaker.name);
                setError(undefined);
              }
            }}
          />
          <Button type="submit" size="sm" variant="primary" loading={rename.isPending}>
            Save
          </Button>
          <Button size="sm" variant="ghost" onClick={() => (setEditing(false), setName(speaker.name), setError(undefined))}>
            Cancel
          </Button>
          <FieldError id={ids.error}>{error}</FieldError>
        </form>
      ) : (
        <>
          <span className="speaker-name" style={{ color: speakerColor(speaker.id) }}>
            {speaker.name}
          </span>
          {speaker.name !== speaker.id ? <span className="muted speaker-id">({speaker.id})</span> : null}
          {speaker.confidence !== undefined ? <RecognisedVoice transcriptionId={transcriptionId} speaker={speaker} /> : null}
          <Button size="sm" variant="ghost" onClick={() => (setName(speaker.name), setEditing(true))} aria-label={`Rename speaker ${speaker.name}`}>
            Rename
          </Button>
          <Button size="sm" variant="ghost" aria-pressed={shown} onClick={onToggle} aria-label={`${shown ? "Hide" : "Show"} ${speaker.name}'s segments`}>
            {shown ? "Hide" : "Show"}
          </Button>
        </>
      )}
    </li>
  );
}

/** A name the voice library gave (decision 0031): how sure, and the undo when it is wrong. */
function RecognisedVoice({ transcriptionId, speaker }: { transcriptionId: string; speaker: Speaker }) {
  const queryClient = useQueryClient();
  const undo = useMutation({
    mutationFn: () => unmatchSpeaker(transcriptionId, speaker.id),
    onSuccess: () => {
      toast.success(`${speaker.id} is no longer called ${speaker.name}`);
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcription(transcriptionId) });
    },
    onError: (err) => toast.error(err.message),
  });
  return (
    <>
      <Badge variant="info" title="Recognised from your saved voices" data-testid="speaker-recognised">
        recognised {Math.round((speaker.confidence ?? 0) * 100)}%
      </Badge>
      <Button size="sm" variant="ghost" loading={undo.isPending} onClick={() => undo.mutate()} aria-label={`Not ${speaker.name}: undo the match`}>
        Not {speaker.name}
      </Button>
    </>
  );
}

function RediarizeDialog({ id, open, onOpenChange }: { id: string; open: boolean; onOpenChange: (open: boolean) => void }) {
  const queryClient = useQueryClient();
  const [choice, setChoice] = useState<DiarizationChoice>({ diarize: true, minSpeakers: "", maxSpeakers: "" });
  const [error, setError] = useState<string>();
  const run = useMutation({
    mutationFn: (counts: { minSpeakers?: number; maxSpeakers?: number }) => diarizeTranscription(id, counts),
    onSuccess: () => {
      toast.success("Identifying speakers");
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcriptions });
      onOpenChange(false);
    },
    onError: (err) => setError(err.message),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = diarizationSettings(choice);
    if ("error" in parsed) return setError(parsed.error);
    setError(undefined);
    const { minSpeakers, maxSpeakers } = parsed.settings;
    run.mutate({ ...(minSpeakers !== undefined ? { minSpeakers } : {}), ...(maxSpeakers !== undefined ? { maxSpeakers } : {}) });
  };
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {open ? (
        <DialogContent title="Identify speakers" description="The transcript's text stays as it is; only who said what is worked out again (names go back to S1, S2…).">
          <form onSubmit={submit} noValidate>
            <DiarizationFields value={choice} onChange={setChoice} error={error} toggle={false} />
            <DialogFooter>
              <DialogClose asChild>
                <Button variant="ghost">Cancel</Button>
              </DialogClose>
              <Button type="submit" variant="primary" loading={run.isPending}>
                Identify speakers
              </Button>
            </DialogFooter>
          </form>
        </DialogContent>
      ) : null}
    </Dialog>
  );
}
