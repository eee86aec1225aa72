// Account Settings → voice library (decision 0031): the opt-in switch with a plain
// explanation, the saved voices with rename and delete (confirmed, for good).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import { toast } from "sonner";
import { Button, Dialog, DialogClose, DialogContent, DialogFooter, FieldError, Input } from "../../components/ui";
import type { Voice } from "../../lib/api/generated/zod.gen";
import { speakerNameSchema } from "../../lib/form-rules";
import { deleteVoice, getVoiceSettings, listVoices, renameVoice, setVoiceSettings, voiceQueryKeys } from "../../lib/api/voices";
import { formatDateTime } from "../../lib/format";
import { Section } from "./Section";

export function VoiceLibrarySection() {
  const queryClient = useQueryClient();
  const switchId = useId();
  const settings = useQuery({ queryKey: voiceQueryKeys.settings, queryFn: ({ signal }) => getVoiceSettings(signal) });
  const enabled = settings.data?.enabled ?? false;
  const voices = useQuery({ queryKey: voiceQueryKeys.list, queryFn: ({ signal }) => listVoices(signal), enabled });
  const [confirmOff, setConfirmOff] = useState(false);
  const toggle = useMutation({
    mutationFn: setVoiceSettings,
    onSuccess: async (answer) => {
      queryClient.setQueryData(voiceQueryKeys.settings, answer);
      setConfirmOff(false);
      toast.success(answer.enabled ? "Voice library on" : "Voice library off; saved voices deleted");
      await queryClient.invalidateQueries({ queryKey: voiceQueryKeys.list });
    },
    onError: (cause) => toast.error(cause.message),
  });
  const change = (next: boolean) => {
    // Off deletes every voice: ask first when there are any.
    if (!next && (voices.data?.voices.length ?? 0) > 0) return setConfirmOff(true);
    toggle.mutate(next);
  };

  return (
    <Section
      title="Voice library"
      description={
        <>
          When this is on and you rename a speaker in a transcript (S1 → “Maria”), we remember that person’s voice, and later
          transcripts with speakers show “Maria” instead of S1, with how sure we are. We keep a voice print — a list of numbers
          describing the voice — never the audio, only for you, and you can undo a wrong name. It is off until you turn it on;
          turning it off, or deleting your account, deletes every saved voice.
        </>
      }
      testId="account-voices"
    >
      {settings.isPending ? <p className="muted">Loading…</p> : null}
      {settings.error ? <p role="alert">{settings.error.message}</p> : null}
      {settings.data ? (
        <label className="checkbox-row" htmlFor={switchId}>
          <input
            id={switchId}
            type="checkbox"
            role="switch"
            checked={enabled}
            aria-checked={enabled}
            disabled={toggle.isPending}
            onChange={(event) => change(event.target.checked)}
            data-testid="voice-library-switch"
          />{" "}
          Remember the voices of speakers I name
        </label>
      ) : null}
      {enabled && voices.isPending ? <p className="muted">Loading…</p> : null}
      {enabled && voices.error ? <p role="alert">{voices.error.message}</p> : null}
      {enabled && voices.data && voices.data.voices.length === 0 ? <p className="muted">No saved voices yet. Rename a speaker in a transcript to save one.</p> : null}
      {enabled && voices.data && voices.data.voices.length > 0 ? (
        <ul className="account-list" aria-label="Saved voices">
          {voices.data.voices.map((voice) => (
            <VoiceRow key={voice.id} voice={voice} />
          ))}
        </ul>
      ) : null}
      <Dialog open={confirmOff} onOpenChange={setConfirmOff}>
        <DialogContent title="Turn the voice library off?" description="Every saved voice is deleted for good. Names already in your transcripts stay.">
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="ghost">Cancel</Button>
            </DialogClose>
            <Button variant="danger" loading={toggle.isPending} onClick={() => toggle.mutate(false)} data-testid="voice-library-off-confirm">
              Turn off and delete voices
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Section>
  );
}

function VoiceRow({ voice }: { voice: Voice }) {
  const queryClient = useQueryClient();
  const ids = { input: useId(), error: useId() };
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(voice.name);
  const [error, setError] = useState<string>();
  const [confirm, setConfirm] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: voiceQueryKeys.list });
  const rename = useMutation({
    mutationFn: (next: string) => renameVoice(voice.id, next),
    onSuccess: async () => {
      toast.success("Voice renamed");
      setEditing(false);
      await refresh();
    },
    onError: (cause) => setError(cause.message),
  });
  const remove = useMutation({
    mutationFn: () => deleteVoice(voice.id),
    onSuccess: async () => {
      toast.success(`Voice “${voice.name}” deleted`);
      setConfirm(false);
      await refresh();
    },
    onError: (cause) => toast.error(cause.message),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = speakerNameSchema.safeParse(name);
    if (!parsed.success) return setError(parsed.error.issues[0]?.message);
    setError(undefined);
    rename.mutate(parsed.data);
  };

  return (
    <li data-testid="voice" className="stack">
      {editing ? (
        <form className="speaker-rename" onSubmit={submit} noValidate aria-label={`Rename voice ${voice.name}`}>
          <Input
            id={ids.input}
            aria-label="Voice name"
            value={name}
            autoFocus
            maxLength={200}
            invalid={error !== undefined}
            aria-describedby={error ? ids.error : undefined}
            onChange={(event) => {
              setName(event.target.value);
              setError(undefined);
            }}
            data-testid="voice-name"
          />
          <Button type="submit" size="sm" variant="primary" loading={rename.isPending} data-testid="voice-save">
            Save
          </Button>
          <Button size="sm" variant="ghost" onClick={() => {
              setEditing(false);
              setName(voice.name);
              setError(undefined);
            }}>
            Cancel
          </Button>
          <FieldError id={ids.error}>{error}</FieldError>
        </form>
      ) : (
        <span>
          {voice.name}
          <span className="muted small">
            {" "}
            · from {voice.samples} recording{voice.samples === 1 ? "" : "s"} · updated {formatDateTime(voice.updatedAt)}
          </span>
        </span>
      )}
      {editing ? null : (
        <div className="button-row">
          <Button size="sm" variant="ghost" onClick={() => {
              setName(voice.name);
              setEditing(true);
            }} aria-label={`Rename voice ${voice.name}`} data-testid="voice-rename">
            Rename
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setConfirm(true)} aria-label={`Delete voice ${voice.name}`} data-testid="voice-delete">
            Delete
          </Button>
        </div>
      )}
      <Dialog open={confirm} onOpenChange={setConfirm}>
        <DialogContent title={`Delete the voice “${voice.name}”?`} description="Its voice print is deleted for good; later transcripts will not recognise this voice.">
          <DialogFooter>
            <DialogClose asChild>
              <Button variant="ghost">Cancel</Button>
            </DialogClose>
            <Button variant="danger" loading={remove.isPending} onClick={() => remove.mutate()} data-testid="voice-delete-confirm">
              Delete voice
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </li>
  );
}
