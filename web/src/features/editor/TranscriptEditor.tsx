// The transcript editor (decision 0021): segments that follow playback and stay clickable,
// click "Edit" (or double-click the text) to type, split at the cursor, merge with the
// next, find and replace, undo/redo, save as a revision (409 → reload or overwrite),
// history with restore, low-confidence words marked, keyboard shortcuts; segments (one or a
// selection) given to another speaker, saved as a revision like any edit.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { Badge, Button, Card, Dialog, DialogContent, DialogFooter, Input, Label, Select, SelectContent, SelectItem, SelectTrigger } from "../../components/ui";
import { ApiError } from "../../lib/api/errors";
import { queryKeys } from "../../lib/api/product";
import type { Segment, TranscriptionDetail } from "../../lib/api/generated/zod.gen";
import { formatDateTime, formatDuration } from "../../lib/format";
import { SpeakerTag, useSpeakerView } from "../speakers";
import { activeIndex } from "../transcript/active-segment";
import { editorKeys, listRevisions, restoreRevision, saveAndPatch } from "./api";
import {
  clearDraft,
  commit,
  countMatches,
  draftFrom,
  historyOf,
  isDirty,
  loadDraft,
  mergeWithNext,
  reassignSpeaker,
  redo,
  replaceMatches,
  setText,
  splitAt,
  storeDraft,
  toSaveBody,
  undo,
  type Draft,
  type History,
} from "./draft";
import { isTyping, SHORTCUTS, shortcutFor, type ShortcutAction } from "./shortcuts";
import "./editor.css";

export interface PlayerControls {
  toggle(): void;
  skip(seconds: number): void;
  changeRate(step: 1 | -1): void;
}

const THRESHOLD_KEY = "transcribe.editor.confidenceThreshold";
const DEFAULT_THRESHOLD = 0.5;

function storedThreshold(): number {
  const value = Number(globalThis.localStorage?.getItem(THRESHOLD_KEY));
  return Number.isFinite(value) && value > 0 && value <= 1 ? value : DEFAULT_THRESHOLD;
}

export function TranscriptEditor({
  transcript,
  time,
  onSeek,
  player,
}: {
  transcript: TranscriptionDetail;
  time: number;
  onSeek: (seconds: number) => void;
  player: PlayerControls;
}) {
  const result = transcript.result!;
  const queryClient = useQueryClient();
  const original = useMemo(() => draftFrom(transcript.id, result.revision, result.segments), [transcript.id, result.revision, result.segments]);
  const [history, setHistory] = useState<History>(() => historyOf(loadDraft(transcript.id) ?? original));
  const draft = history.present;
  const dirty = isDirty(draft, original) || draft.baseRevision !== original.baseRevision;
  const [editing, setEditing] = useState<string | undefined>();
  const [findOpen, setFindOpen] = useState(false);
  const [historyOpen, setHistoryOpen] = useState(false);
  const [helpOpen, setHelpOpen] = useState(false);
  const [conflict, setConflict] = useState<number | undefined>();
  const [threshold, setThreshold] = useState(storedThreshold);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const textareas = useRef(new Map<string, HTMLTextAreaElement>());
  const findInput = useRef<HTMLInputElement>(null);

  // A newer revision from the server (a save, a restore, another tab) resets a clean editor.
  useEffect(() => {
    setHistory((current) => (isDirty(current.present, original) || current.present.baseRevision !== original.baseRevision ? current : historyOf(original)));
  }, [original]);

  useEffect(() => {
    if (dirty) storeDraft(draft);
    else clearDraft(transcript.id);
  }, [draft, dirty, transcript.id]);

  useEffect(() => {
    localStorage.setItem(THRESHOLD_KEY, String(threshold));
  }, [threshold]);

  const change = useCallback((next: (d: Draft) => Draft) => setHistory((h) => commit(h, next(h.present))), []);

  const applySaved = useCallback(
    (saved: Awaited<ReturnType<typeof saveAndPatch>>) => {
      clearDraft(transcript.id);
      queryClient.setQueryData<TranscriptionDetail>(queryKeys.transcription(transcript.id), (old) => (old ? { ...old, result: saved.result } : old));
      setHistory(historyOf(draftFrom(transcript.id, saved.result.revision, saved.result.segments)));
      setEditing(undefined);
      void queryClient.invalidateQueries({ queryKey: editorKeys.revisions(transcript.id) });
    },
    [queryClient, transcript.id],
  );

  const save = useMutation({
    mutationFn: (d: Draft) => saveAndPatch(transcript.id, result, toSaveBody(d)),
    onSuccess: (saved) => {
      applySaved(saved);
      toast.success(`Saved as revision ${saved.revision.number}`);
    },
    onError: (error) => {
      if (error instanceof ApiError && error.status === 409) {
        const detail = (error.body as { error?: { detail?: { current_revision?: number } } } | undefined)?.error?.detail;
        setConflict(detail?.current_revision ?? -1);
        return;
      }
      // The draft stays on screen and in local storage; nothing typed is lost.
      toast.error(`Not saved: ${error.message}`);
    },
  });

  const restore = useMutation({
    mutationFn: (revision: number) => restoreRevision(transcript.id, revision),
    onSuccess: (restored) => {
      applySaved(restored);
      toast.success(`Revision ${restored.revision.restoredFrom} restored (now revision ${restored.revision.number})`);
    },
    onError: (error) => toast.error(`Not restored: ${error.message}`),
  });

  const doSave = useCallback(() => {
    if (dirty && !save.isPending) save.mutate(draft);
  }, [dirty, draft, save]);

  const reloadFromServer = async () => {
    setConflict(undefined);
    clearDraft(transcript.id);
    await queryClient.refetchQueries({ queryKey: queryKeys.transcription(transcript.id) });
    const fresh = queryClient.getQueryData<TranscriptionDetail>(queryKeys.transcription(transcript.id));
    if (fresh?.result) setHistory(historyOf(draftFrom(transcript.id, fresh.result.revision, fresh.result.segments)));
  };

  const overwrite = () => {
    const current = conflict;
    setConflict(undefined);
    if (current !== undefined && current > 0) save.mutate({ ...draft, baseRevision: current });
  };

  const moveSegment = useCallback(
    (step: 1 | -1) => {
      const index = activeIndex(result.segments, time);
      const target = result.segments[Math.max(0, Math.min(result.segments.length - 1, index + step))];
      if (target) onSeek(target.start);
    },
    [onSeek, result.segments, time],
  );

  const run = useCallback(
    (action: ShortcutAction) => {
      switch (action) {
        case "toggle":
          return player.toggle();
        case "back":
          return player.skip(-5);
        case "forward":
          return player.skip(5);
        case "slower":
          return player.changeRate(-1);
        case "faster":
          return player.changeRate(1);
        case "next":
          return moveSegment(1);
        case "previous":
          return moveSegment(-1);
        case "find":
          setFindOpen(true);
          return setTimeout(() => findInput.current?.focus(), 0);
        case "save":
          return doSave();
        case "undo":
          return setHistory(undo);
        case "redo":
          return setHistory(redo);
        case "help":
          return setHelpOpen(true);
      }
    },
    [doSave, moveSegment, player],
  );

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const action = shortcutFor(event, isTyping(event.target));
      if (!action) return;
      event.preventDefault();
      run(action);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [run]);

  const speakerView = useSpeakerView();
  const withSpeakers = speakerView.speakers.length > 0;
  // A selection only holds segments still in the draft (undo, a save or a reload may drop some).
  const selection = useMemo(() => new Set(draft.segments.filter((s) => selected.has(s.key)).map((s) => s.key)), [draft.segments, selected]);
  const toggleSelected = (key: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  const reassign = (speaker: string) => {
    const count = selection.size;
    change((d) => reassignSpeaker(d, selection, speaker));
    setSelected(new Set());
    toast.success(`${count} segment${count === 1 ? "" : "s"} given to ${speakerView.nameOf(speaker) ?? speaker}; save to keep it`);
  };
  const originalByKey = useMemo(() => new Map(original.segments.map((s) => [s.key, s])), [original]);
  const serverById = useMemo(() => new Map(result.segments.map((s) => [s.id, s])), [result.segments]);
  const active = activeIndex(result.segments, time);
  const activeId = result.segments[active]?.id;

  return (
    <section className="editor" aria-label="Transcript editor">
      <Card className="editor-toolbar">
        <div className="editor-actions">
          <Button size="sm" variant="primary" onClick={doSave} disabled={!dirty} loading={save.isPending} title="Save (Ctrl+S)">
            Save
          </Button>
          <Button size="sm" onClick={() => setHistory(undo)} disabled={history.past.length === 0} title="Undo (Ctrl+Z)">
            Undo
          </Button>
          <Button size="sm" onClick={() => setHistory(redo)} disabled={history.future.length === 0} title="Redo (Ctrl+Shift+Z)">
            Redo
          </Button>
          <Button size="sm" onClick={() => setHistory(commit(history, original))} disabled={!dirty}>
            Discard edits
          </Button>
          <Button size="sm" onClick={() => setFindOpen((open) => !open)} aria-expanded={findOpen}>
            Find &amp; replace
          </Button>
          <Button size="sm" onClick={() => setHistoryOpen((open) => !open)} aria-expanded={historyOpen}>
            History
          </Button>
          <Button size="sm" variant="ghost" onClick={() => setHelpOpen(true)} aria-label="Keyboard shortcuts">
            ?
          </Button>
        </div>
        <div className="editor-status">
          {dirty ? <Badge variant="warning">Unsaved edits</Badge> : <span className="muted">Revision {result.revision}</span>}
          <label className="editor-threshold">
            Mark words below{" "}
            <Input
              type="number"
              min={0.05}
              max={1}
              step={0.05}
              value={threshold}
              aria-label="Confidence threshold"
              onChange={(event) => {
                const value = Number(event.target.value);
                if (value > 0 && value <= 1) setThreshold(value);
              }}
            />{" "}
            confidence
          </label>
        </div>
      </Card>

      {withSpeakers && selection.size > 0 ? (
        <Card className="reassign-bar" role="region" aria-label="Reassign speaker">
          <span>
            {selection.size} segment{selection.size === 1 ? "" : "s"} selected
          </span>
          <Label htmlFor="reassign-speaker">Give to</Label>
          <Select value="" onValueChange={reassign}>
            <SelectTrigger id="reassign-speaker" placeholder="Choose a speaker" />
            <SelectContent>
              {speakerView.speakers.map((s) => (
                <SelectItem key={s.id} value={s.id}>
                  {s.name}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
          <Button size="sm" variant="ghost" onClick={() => setSelected(new Set())}>
            Clear selection
          </Button>
        </Card>
      ) : null}

      {findOpen ? <FindReplace draft={draft} onChange={change} inputRef={findInput} onClose={() => setFindOpen(false)} /> : null}
      {historyOpen ? (
        <RevisionHistory id={transcript.id} current={result.revision} dirty={dirty} restoring={restore.isPending} onRestore={(n) => restore.mutate(n)} />
      ) : null}

      <ol className="segments" aria-label="Segments">
        {draft.segments.map((segment, index) => {
          // The speakers panel's filter hides other speakers' turns (decision 0020).
          if (!speakerView.isShown(segment.speaker)) return null;
          const turn = segment.speaker && segment.speaker !== draft.segments[index - 1]?.speaker ? segment.speaker : undefined;
          const before = originalByKey.get(segment.key);
          const server = segment.id !== undefined ? serverById.get(segment.id) : undefined;
          const unchanged = before !== undefined && server !== undefined && before.text.trim() === segment.text.trim();
          const isActive = unchanged && server!.id === activeId;
          const isEditing = editing === segment.key;
          const start = server?.start;
          return (
            <li
              key={segment.key}
              className={`segment${isActive ? " segment-active" : ""}${unchanged ? "" : " segment-edited"}`}
              aria-current={isActive ? "true" : undefined}
              data-segment-id={segment.id ?? "new"}
              data-speaker={segment.speaker}
            >
              {turn ? <SpeakerTag speaker={turn} /> : null}
              {start !== undefined ? (
                <button type="button" className="segment-time" onClick={() => onSeek(start)} aria-label={`Play from ${formatDuration(start)}`}>
                  {formatDuration(start)}
                </button>
              ) : (
                <span className="segment-time muted">new</span>
              )}
              <div className="segment-body">
                {isEditing ? (
                  <>
                    <textarea
                      className="input segment-input"
                      aria-label={`Segment ${index + 1} text`}
                      ref={(element) => {
                        if (element) textareas.current.set(segment.key, element);
                        else textareas.current.delete(segment.key);
                      }}
                      autoFocus
                      value={segment.text}
                      rows={Math.max(2, Math.ceil(segment.text.length / 80))}
                      onChange={(event) => change((d) => setText(d, segment.key, event.target.value))}
                      onKeyDown={(event) => {
                        if (event.key === "Escape") setEditing(undefined);
                      }}
                    />
                    <div className="segment-tools">
                      <Button
                        size="sm"
                        onClick={() => {
                          const element = textareas.current.get(segment.key);
                          const next = splitAt(draft, segment.key, element?.selectionStart ?? segment.text.length);
                          change(() => next);
                          setEditing(next.segments[index + 1]?.key);
                        }}
                      >
                        Split at cursor
                      </Button>
                      <Button size="sm" onClick={() => change((d) => mergeWithNext(d, segment.key))} disabled={index === draft.segments.length - 1}>
                        Merge with next
                      </Button>
                      <Button size="sm" variant="ghost" onClick={() => setEditing(undefined)}>
                        Done
                      </Button>
                    </div>
                  </>
                ) : (
                  <div className="segment-line">
                    {withSpeakers ? (
                      <input
                        type="checkbox"
                        className="segment-select"
                        checked={selection.has(segment.key)}
                        onChange={() => toggleSelected(segment.key)}
                        aria-label={`Select segment ${index + 1}`}
                      />
                    ) : null}
                    <p className="segment-text" onClick={() => start !== undefined && onSeek(start)} onDoubleClick={() => setEditing(segment.key)}>
                      {unchanged ? <Words segment={server!} active={isActive} time={time} threshold={threshold} onSeek={onSeek} /> : segment.text}
                    </p>
                    <Button size="sm" variant="ghost" className="segment-edit" onClick={() => setEditing(segment.key)} aria-label={`Edit segment ${index + 1}`}>
                      Edit
                    </Button>
                  </div>
                )}
              </div>
            </li>
          );
        })}
      </ol>

      <Dialog open={conflict !== undefined} onOpenChange={(open) => !open && setConflict(undefined)}>
        <DialogContent
          title="This transcript changed in the meantime"
          description={`Someone saved revision ${conflict ?? ""} (perhaps in another tab) after you started editing. Your text is still here.`}
        >
          <p>Reload to see their version (your edits here are dropped), or overwrite it with yours.</p>
          <DialogFooter>
            <Button onClick={() => void reloadFromServer()}>Reload their version</Button>
            <Button variant="primary" onClick={overwrite}>
              Overwrite with mine
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>

      <Dialog open={helpOpen} onOpenChange={setHelpOpen}>
        <DialogContent title="Keyboard shortcuts" description="Letters work when you are not typing in a field; the ones with Ctrl or Alt work everywhere.">
          <table className="table shortcuts">
            <tbody>
              {SHORTCUTS.map((s) => (
                <tr key={s.action}>
                  <td>
                    {s.keys.map((k) => (
                      <kbd key={k}>{k}</kbd>
                    ))}
                  </td>
                  <td>{s.label}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </DialogContent>
      </Dialog>
    </section>
  );
}

function Words({ segment, active, time, threshold, onSeek }: { segment: Segment; active: boolean; time: number; threshold: number; onSeek: (s: number) => void }) {
  const words = segment.words ?? [];
  if (words.length === 0) return <>{segment.text.trim()}</>;
  const activeWord = active ? activeIndex(words, time) : -1;
  return (
    <>
      {words.map((word, i) => {
        const unsure = word.probability !== undefined && word.probability < threshold;
        return [
          i > 0 ? " " : null,
          <span
            key={i}
            className={`word${i === activeWord ? " word-active" : ""}${unsure ? " word-unsure" : ""}`}
            data-active={i === activeWord || undefined}
            title={unsure ? `Unsure: ${Math.round(word.probability! * 100)}% confidence` : undefined}
            onClick={(event) => {
              event.stopPropagation();
              onSeek(word.start);
            }}
          >
            {word.word.trim()}
          </span>,
        ];
      })}
    </>
  );
}

function FindReplace({ draft, onChange, inputRef, onClose }: { draft: Draft; onChange: (f: (d: Draft) => Draft) => void; inputRef: React.RefObject<HTMLInputElement | null>; onClose: () => void }) {
  const [find, setFind] = useState("");
  const [replacement, setReplacement] = useState("");
  const [caseSensitive, setCaseSensitive] = useState(false);
  const [wholeWord, setWholeWord] = useState(false);
  const options = { caseSensitive, wholeWord };
  const matches = countMatches(draft, find, options);
  const apply = (only?: "first") => {
    const { draft: next, replaced } = replaceMatches(draft, find, replacement, options, only);
    if (replaced > 0) {
      onChange(() => next);
      toast.success(`${replaced} replaced; save to keep it`);
    }
  };
  return (
    <Card className="find-replace" role="search">
      <div className="find-fields">
        <Label>
          Find
          <Input ref={inputRef} value={find} onChange={(e) => setFind(e.target.value)} onKeyDown={(e) => e.key === "Escape" && onClose()} />
        </Label>
        <Label>
          Replace with
          <Input value={replacement} onChange={(e) => setReplacement(e.target.value)} />
        </Label>
      </div>
      <div className="find-options">
        <label>
          <input type="checkbox" checked={caseSensitive} onChange={(e) => setCaseSensitive(e.target.checked)} /> Match case
        </label>
        <label>
          <input type="checkbox" checked={wholeWord} onChange={(e) => setWholeWord(e.target.checked)} /> Whole words
        </label>
        <span className="muted" aria-live="polite">
          {find ? `${matches} match${matches === 1 ? "" : "es"}` : ""}
        </span>
        <Button size="sm" onClick={() => apply("first")} disabled={matches === 0}>
          Replace one
        </Button>
        <Button size="sm" onClick={() => apply()} disabled={matches === 0}>
          Replace all
        </Button>
        <Button size="sm" variant="ghost" onClick={onClose}>
          Close
        </Button>
      </div>
    </Card>
  );
}

function RevisionHistory({ id, current, dirty, restoring, onRestore }: { id: string; current: number; dirty: boolean; restoring: boolean; onRestore: (n: number) => void }) {
  const revisions = useQuery({ queryKey: editorKeys.revisions(id), queryFn: ({ signal }) => listRevisions(id, signal) });
  return (
    <Card className="revision-history">
      <h2 className="revision-title">History</h2>
      {revisions.isPending ? <p className="muted">Loading…</p> : null}
      {revisions.isError ? <p role="alert">Could not load the history: {revisions.error.message}</p> : null}
      {dirty ? <p className="muted">Save or discard your edits before restoring a revision.</p> : null}
      <ol className="revision-list" aria-label="Revisions">
        {revisions.data?.revisions.map((r) => (
          <li key={r.number} className="revision" data-revision={r.number}>
            <span>
              <strong>Revision {r.number}</strong>{" "}
              {r.kind === "original" ? "Original (speech engine)" : r.kind === "restore" ? `Restored revision ${r.restoredFrom}` : "Edit"}
              {r.number === current ? <Badge variant="info">current</Badge> : null}
            </span>
            <span className="muted">
              {formatDateTime(r.createdAt)}
              {r.kind !== "original" ? ` · ${r.changes.editedSegments.length} edited, ${r.changes.addedSegments.length} added, ${r.changes.removedSegments.length} removed segments` : ""}
            </span>
            <Button size="sm" onClick={() => onRestore(r.number)} disabled={r.number === current || dirty || restoring}>
              Restore
            </Button>
          </li>
        ))}
      </ol>
    </Card>
  );
}
