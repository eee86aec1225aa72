// /transcript/{id} (docs/api.md): title (renamable), metadata, the player, and the segments
// that follow playback. The highlight reads the element's currentTime on timeupdate and,
// while playing, on every animation frame (timeupdate alone fires only ~4 times a second).
import { useQuery } from "@tanstack/react-query";
import { useNavigate } from "@tanstack/react-router";
import { useCallback, useEffect, useId, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { Button, Card, Label, LoadingRegion, Select, SelectContent, SelectItem, SelectTrigger, Skeleton, Spinner } from "../../components/ui";
import { getTranscription, getTranscriptionAudioUrl, queryKeys, retryTranscription } from "../../lib/api/product";
import type { Segment, TranscriptionDetail } from "../../lib/api/generated/zod.gen";
import { formatDateTime, formatDuration } from "../../lib/format";
import { DeleteDialog } from "../transcriptions/DeleteDialog";
import { RenameDialog } from "../transcriptions/RenameDialog";
import { IN_PROGRESS_STATUSES, StatusBadge } from "../transcriptions/StatusBadge";
import { languageLabel, StartTranscriptionForm } from "../transcriptions/StartTranscriptionForm";
import { SpeakerPanel, SpeakerTag, SpeakerViewProvider, useSpeakerView } from "../speakers";
import { TranscriptEditor, type PlayerControls } from "../editor/TranscriptEditor";
import { activeIndex } from "./active-segment";
import { ExportMenu } from "./ExportMenu";

export const DETAIL_POLL_INTERVAL_MS = 3000;
export const PLAYBACK_RATES = [0.5, 0.75, 1, 1.25, 1.5, 2] as const;

export function transcriptionQueryOptions(id: string) {
  return {
    queryKey: queryKeys.transcription(id),
    queryFn: ({ signal }: { signal: AbortSignal }) => getTranscription(id, signal),
  };
}

export function TranscriptView({ id, startAt }: { id: string; startAt?: number | undefined }) {
  const navigate = useNavigate();
  const detail = useQuery({
    ...transcriptionQueryOptions(id),
    staleTime: 0,
    refetchInterval: (query) => (query.state.data && IN_PROGRESS_STATUSES.has(query.state.data.status) ? DETAIL_POLL_INTERVAL_MS : false),
  });
  const [renameOpen, setRenameOpen] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const [rerunOpen, setRerunOpen] = useState(false);

  if (detail.isPending) return <TranscriptSkeleton />;
  if (detail.isError) throw detail.error;
  const transcript = detail.data;
  const completed = transcript.status === "completed";
  // The service re-runs only a finished transcription (409 while a job runs).
  const canRerun = completed || transcript.status === "failed";

  return (
    <SpeakerViewProvider speakers={transcript.result?.speakers ?? []}>
    <div className="transcript-page">
      <header className="page-header transcript-header">
        <div>
          <p className="eyebrow muted">Transcript</p>
          <h1>{transcript.displayName}</h1>
        </div>
        <div className="button-row">
          <Button size="sm" onClick={() => setRenameOpen(true)}>
            Rename
          </Button>
          <Button size="sm" onClick={() => setRerunOpen((open) => !open)} disabled={!canRerun} aria-expanded={rerunOpen}>
            Re-run
          </Button>
          <ExportMenu transcriptionId={id} disabled={!completed} withSpeakers={(transcript.result?.speakers.length ?? 0) > 0} />
          <Button size="sm" variant="danger" onClick={() => setDeleteOpen(true)}>
            Delete
          </Button>
        </div>
      </header>

      <Metadata transcript={transcript} />
      {completed || transcript.result ? <SpeakerPanel transcript={transcript} /> : null}

      {rerunOpen && canRerun ? (
        <Card className="rerun">
          <h2 className="rerun-title">Re-run with another model</h2>
          <StartTranscriptionForm
            // The retry addresses the transcription; the file id only completes the form's validation.
            fileId={transcript.audioFile.fileId ?? id}
            initial={{
              model: transcript.config?.model,
              language: transcript.config?.language,
              diarize: transcript.config?.diarize ?? false,
              ...(transcript.config?.minSpeakers !== undefined ? { minSpeakers: transcript.config.minSpeakers } : {}),
              ...(transcript.config?.maxSpeakers !== undefined ? { maxSpeakers: transcript.config.maxSpeakers } : {}),
            }}
            label="Re-run transcription"
            submitLabel="Re-run"
            cancelLabel="Cancel"
            submit={async (settings) => {
              await retryTranscription(id, settings);
              return { transcriptionId: id, message: "Transcription restarted" };
            }}
            // The form invalidates every ["transcriptions", …] query, this page's detail too: it
            // refetches the row (pending again), which starts the polling until it completes.
            onStarted={() => setRerunOpen(false)}
            onCancel={() => setRerunOpen(false)}
          />
        </Card>
      ) : null}

      {completed ? null : (
        <Card className="transcript-status" role="status">
          <StatusBadge status={transcript.status} />{" "}
          {transcript.status === "failed" ? (
            <span>{transcript.error ?? "The transcription failed."}</span>
          ) : IN_PROGRESS_STATUSES.has(transcript.status) ? (
            <span>
              <Spinner size="sm" /> {transcript.progress ? `${transcript.progress}…` : "Transcribing…"} this page updates by itself.
            </span>
          ) : null}
        </Card>
      )}

      {transcript.status !== "deleted" ? <Player transcript={transcript} startAt={startAt} /> : null}

      <RenameDialog
        id={id}
        currentName={transcript.displayName}
        open={renameOpen}
        onOpenChange={(open) => {
          setRenameOpen(open);
          if (!open) void detail.refetch();
        }}
      />
      <DeleteDialog
        id={id}
        name={transcript.displayName}
        open={deleteOpen}
        onOpenChange={setDeleteOpen}
        onDeleted={() => void navigate({ to: "/dashboard" })}
      />
    </div>
    </SpeakerViewProvider>
  );
}

function Metadata({ transcript }: { transcript: TranscriptionDetail }) {
  const language = transcript.result?.language ?? transcript.config?.language;
  const duration = transcript.result?.duration;
  return (
    <dl className="transcript-meta">
      <div>
        <dt>Model</dt>
        <dd>{transcript.config?.model ?? "—"}</dd>
      </div>
      <div>
        <dt>Language</dt>
        <dd>{language ? languageLabel(language) : "—"}</dd>
      </div>
      <div>
        <dt>Duration</dt>
        <dd>{duration !== undefined ? formatDuration(duration) : "—"}</dd>
      </div>
      <div>
        <dt>Created</dt>
        <dd>
          <time dateTime={transcript.createdAt}>{formatDateTime(transcript.createdAt)}</time>
        </dd>
      </div>
      <div>
        <dt>File</dt>
        <dd>{transcript.audioFile.fileName}</dd>
      </div>
    </dl>
  );
}

function Player({ transcript, startAt }: { transcript: TranscriptionDetail; startAt?: number | undefined }) {
  const audioUrl = useQuery({
    queryKey: queryKeys.audioUrl(transcript.id),
    queryFn: ({ signal }) => getTranscriptionAudioUrl(transcript.id, signal),
    // Signed URLs expire; refresh well before (the element keeps its already-loaded source).
    staleTime: 5 * 60 * 1000,
  });
  const audioRef = useRef<HTMLAudioElement>(null);
  const [time, setTime] = useState(0);
  const [rate, setRate] = useState(1);
  const rateId = useId();

  const readTime = useCallback(() => {
    const audio = audioRef.current;
    if (audio) setTime(audio.currentTime);
  }, []);

  useEffect(() => {
    const audio = audioRef.current;
    if (!audio) return;
    let frame = 0;
    const tick = () => {
      readTime();
      frame = requestAnimationFrame(tick);
    };
    const onPlay = () => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(tick);
    };
    const onStop = () => {
      cancelAnimationFrame(frame);
      readTime();
    };
    audio.addEventListener("timeupdate", readTime);
    audio.addEventListener("seeked", readTime);
    audio.addEventListener("play", onPlay);
    audio.addEventListener("pause", onStop);
    audio.addEventListener("ended", onStop);
    return () => {
      cancelAnimationFrame(frame);
      audio.removeEventListener("timeupdate", readTime);
      audio.removeEventListener("seeked", readTime);
      audio.removeEventListener("play", onPlay);
      audio.removeEventListener("pause", onStop);
      audio.removeEventListener("ended", onStop);
    };
  }, [readTime]);

  useEffect(() => {
    if (audioRef.current) audioRef.current.playbackRate = rate;
  }, [rate]);

  const seek = useCallback((seconds: number) => {
    const audio = audioRef.current;
    if (audio) audio.currentTime = seconds;
    setTime(seconds);
  }, []);

  const segments = transcript.result?.segments ?? [];

  // /transcript/{id}?t=<seconds> (a search hit): start playing there once the audio is known.
  useEffect(() => {
    const audio = audioRef.current;
    if (!audio || startAt === undefined || !audioUrl.data) return;
    const go = () => {
      seek(startAt);
      // Browsers may refuse to start without a gesture; the position is set either way.
      audio.play().catch(() => undefined);
    };
    if (audio.readyState >= 1) go();
    else audio.addEventListener("loadedmetadata", go, { once: true });
    return () => audio.removeEventListener("loadedmetadata", go);
  }, [startAt, audioUrl.data, seek]);

  const controls = useMemo<PlayerControls>(
    () => ({
      toggle() {
        const audio = audioRef.current;
        if (!audio) return;
        if (audio.paused) audio.play().catch(() => undefined);
        else audio.pause();
      },
      skip(seconds) {
        const audio = audioRef.current;
        if (audio) seek(Math.max(0, Math.min(audio.duration || Infinity, audio.currentTime + seconds)));
      },
      changeRate(step) {
        setRate((current) => PLAYBACK_RATES[Math.max(0, Math.min(PLAYBACK_RATES.length - 1, PLAYBACK_RATES.indexOf(current as (typeof PLAYBACK_RATES)[number]) + step))]!);
      },
    }),
    [seek],
  );

  const copy = async () => {
    const text = transcript.result?.text ?? segments.map((s) => s.text.trim()).join("\n");
    try {
      await navigator.clipboard.writeText(text);
      toast.success("Transcript copied");
    } catch {
      toast.error("Could not copy: the browser refused access to the clipboard.");
    }
  };

  return (
    <>
      <Card className="player">
        {/* The element exists from the start so listeners attach once; its source arrives with the signed URL. */}
        <audio ref={audioRef} controls preload="metadata" src={audioUrl.data?.url} data-testid="transcript-audio" className="player-audio">
          Your browser cannot play this audio.
        </audio>
        {audioUrl.isError ? (
          <p role="alert" className="field-error">
            Could not load the audio: {audioUrl.error.message}
          </p>
        ) : null}
        <div className="player-controls">
          <div className="player-rate">
            <Label htmlFor={rateId}>Speed</Label>
            <Select value={String(rate)} onValueChange={(value) => setRate(Number(value))}>
              <SelectTrigger id={rateId} className="player-rate-trigger" />
              <SelectContent>
                {PLAYBACK_RATES.map((value) => (
                  <SelectItem key={value} value={String(value)}>
                    {value}×
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>
          <Button size="sm" onClick={() => void copy()} disabled={!transcript.result}>
            Copy text
          </Button>
        </div>
      </Card>

      {transcript.status === "completed" && transcript.result && segments.length > 0 ? (
        <TranscriptEditor transcript={transcript} time={time} onSeek={seek} player={controls} />
      ) : segments.length > 0 ? (
        <Segments segments={segments} time={time} onSeek={seek} />
      ) : null}
    </>
  );
}

/** The page's shape while it loads: title, player, a few lines of text. */
function TranscriptSkeleton() {
  return (
    <LoadingRegion label="Loading transcript…" className="transcript-skeleton">
      <Skeleton width="6rem" height="0.8rem" />
      <Skeleton width="min(22rem, 80%)" height="2.25rem" />
      <Skeleton height="5.5rem" className="transcript-skeleton-player" />
      {[92, 76, 85, 60].map((width) => (
        <Skeleton key={width} width={`${width}%`} />
      ))}
    </LoadingRegion>
  );
}

function Segments({ segments, time, onSeek }: { segments: Segment[]; time: number; onSeek: (seconds: number) => void }) {
  const active = activeIndex(segments, time);
  const activeRef = useRef<HTMLLIElement>(null);
  const speakerView = useSpeakerView();

  useEffect(() => {
    // Follow playback without stealing the page from someone scrolling elsewhere.
    activeRef.current?.scrollIntoView?.({ block: "nearest", behavior: "smooth" });
  }, [active]);

  return (
    <ol className="segments" aria-label="Segments">
      {segments.map((segment, index) => {
        if (!speakerView.isShown(segment.speaker)) return null;
        const turn = segment.speaker && segment.speaker !== segments[index - 1]?.speaker ? segment.speaker : undefined;
        const isActive = index === active;
        const words = segment.words ?? [];
        const activeWord = isActive && words.length > 0 ? activeIndex(words, time) : -1;
        return (
          <li
            key={segment.id}
            ref={isActive ? activeRef : undefined}
            className={`segment${isActive ? " segment-active" : ""}`}
            aria-current={isActive ? "true" : undefined}
            data-segment-id={segment.id}
            data-speaker={segment.speaker}
          >
            {turn ? <SpeakerTag speaker={turn} /> : null}
            <button type="button" className="segment-time" onClick={() => onSeek(segment.start)} aria-label={`Play from ${formatDuration(segment.start)}`}>
              {formatDuration(segment.start)}
            </button>
            <p className="segment-text" onClick={() => onSeek(segment.start)}>
              {words.length > 0
                ? words.map((word, wordIndex) => [
                    wordIndex > 0 ? " " : null,
                    <span
                      key={wordIndex}
                      className={`word${wordIndex === activeWord ? " word-active" : ""}`}
                      data-active={wordIndex === activeWord || undefined}
                      onClick={(event) => {
                        event.stopPropagation();
                        onSeek(word.start);
                      }}
                    >
                      {word.word.trim()}
                    </span>,
                  ])
                : segment.text.trim()}
            </p>
          </li>
        );
      })}
    </ol>
  );
}
