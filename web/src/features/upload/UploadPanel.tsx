// The upload card on /dashboard (decision 0009): drop or pick a file, the client-side checks,
// the browser-measured duration, the PUT with progress and cancel, then the wait for the
// server to verify and normalize the file, then the start form (docs/api.md).
import { useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useId, useRef, useState, type DragEvent } from "react";
import { toast } from "sonner";
import { Button, Card, CardDescription, CardHeader, CardTitle, FieldError, Spinner } from "../../components/ui";
import { deleteFile, getFile, queryKeys, requestUpload } from "../../lib/api/product";
import { ALLOWED_CONTENT_TYPES, type AllowedContentType } from "../../lib/form-rules";
import { formatBytes, formatDuration } from "../../lib/format";
import { StartTranscriptionForm } from "../transcriptions/StartTranscriptionForm";
import { checkFile, contentTypeOf, putFile, readMediaDuration, UploadAbortedError } from "./upload-file";

export const FILE_POLL_INTERVAL_MS = 2000;

type Phase =
  | { kind: "idle" }
  | { kind: "reading"; file: File }
  | { kind: "uploading"; file: File; progress: number }
  | { kind: "processing"; file: File; fileId: string }
  | { kind: "ready"; file: File; fileId: string; duration: number };

const ACCEPT = [...Object.keys(ALLOWED_CONTENT_TYPES), ...new Set(Object.values(ALLOWED_CONTENT_TYPES))].join(",");

export function UploadPanel() {
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const [errors, setErrors] = useState<string[]>([]);
  const [dragging, setDragging] = useState(false);
  const abortRef = useRef<AbortController | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const errorId = useId();

  useEffect(() => () => abortRef.current?.abort(), []);

  const reset = useCallback(() => {
    setPhase({ kind: "idle" });
    if (inputRef.current) inputRef.current.value = "";
  }, []);

  const fail = useCallback(
    (message: string) => {
      setErrors([message]);
      toast.error(message);
      reset();
    },
    [reset],
  );

  const start = useCallback(
    async (file: File) => {
      const problems = checkFile(file);
      setErrors(problems);
      if (problems.length > 0) {
        toast.error(problems[0]);
        return;
      }
      const controller = new AbortController();
      abortRef.current?.abort();
      abortRef.current = controller;
      const contentType = contentTypeOf(file);
      try {
        setPhase({ kind: "reading", file });
        const duration = await readMediaDuration(file, contentType);
        if (controller.signal.aborted) throw new UploadAbortedError();
        setPhase({ kind: "uploading", file, progress: 0 });
        const { uploadUrl, fileId } = await requestUpload(
          { fileName: file.name, fileSize: file.size, contentType: contentType as AllowedContentType, duration },
          controller.signal,
        );
        await putFile({
          url: uploadUrl,
          file,
          contentType,
          signal: controller.signal,
          onProgress: (progress) => setPhase((current) => (current.kind === "uploading" ? { ...current, progress } : current)),
        });
        setPhase({ kind: "processing", file, fileId });
      } catch (error) {
        if (error instanceof UploadAbortedError || controller.signal.aborted) {
          toast.info("Upload cancelled");
          reset();
          return;
        }
        fail(error instanceof Error ? error.message : "Upload failed");
      }
    },
    [fail, reset],
  );

  const processingId = phase.kind === "processing" ? phase.fileId : undefined;
  const fileQuery = useQuery({
    queryKey: queryKeys.file(processingId ?? ""),
    queryFn: ({ signal }) => getFile(processingId ?? "", signal),
    enabled: processingId !== undefined,
    staleTime: 0,
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      return status === "ready" || status === "failed" ? false : FILE_POLL_INTERVAL_MS;
    },
  });

  useEffect(() => {
    if (phase.kind !== "processing") return;
    const file = fileQuery.data;
    if (fileQuery.error) return fail(fileQuery.error.message);
    if (!file || file.id !== phase.fileId) return;
    if (file.status === "failed") fail(file.error ?? "The file could not be processed.");
    else if (file.status === "ready") setPhase({ kind: "ready", file: phase.file, fileId: file.id, duration: file.duration });
  }, [phase, fileQuery.data, fileQuery.error, fail]);

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (file && phase.kind === "idle") void start(file);
  };

  return (
    <Card className="upload-card">
      <CardHeader>
        <CardTitle>New transcription</CardTitle>
        <CardDescription>Audio or video up to 100 MB: mp3, wav, m4a, flac, ogg, webm or mp4.</CardDescription>
      </CardHeader>

      {phase.kind === "idle" ? (
        <div
          className={`dropzone${dragging ? " dropzone-active" : ""}`}
          data-testid="dropzone"
          onDragOver={(event) => {
            event.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <p>Drag and drop a file here, or</p>
          <label className="button button-primary">
            Choose a file
            <input
              ref={inputRef}
              type="file"
              className="visually-hidden"
              accept={ACCEPT}
              aria-describedby={errors.length > 0 ? errorId : undefined}
              data-testid="file-input"
              onChange={(event) => {
                const file = event.target.files?.[0];
                if (file) void start(file);
              }}
            />
          </label>
          <FieldError id={errorId}>{errors.length > 0 ? errors.join(". ") : null}</FieldError>
        </div>
      ) : (
        <div className="upload-status">
          <p className="upload-file-name">
            <strong>{phase.file.name}</strong> <span className="muted">({formatBytes(phase.file.size)})</span>
          </p>
          {phase.kind === "reading" ? <Spinner label="Reading the file…" /> : null}
          {phase.kind === "uploading" ? <UploadProgress progress={phase.progress} /> : null}
          {phase.kind === "processing" ? (
            <p className="upload-processing">
              <Spinner size="sm" /> Processing…
            </p>
          ) : null}
          {phase.kind === "reading" || phase.kind === "uploading" ? (
            <Button variant="secondary" onClick={() => abortRef.current?.abort()}>
              Cancel
            </Button>
          ) : null}
          {phase.kind === "ready" ? (
            <>
              <p className="muted">Ready · {formatDuration(phase.duration)}</p>
              <StartTranscriptionForm
                fileId={phase.fileId}
                onStarted={reset}
                onCancel={() => {
                  // Discarding before any transcription: the stored file has no other use.
                  void deleteFile(phase.fileId).catch(() => undefined);
                  reset();
                }}
              />
            </>
          ) : null}
        </div>
      )}
    </Card>
  );
}

function UploadProgress({ progress }: { progress: number }) {
  const percent = Math.round(progress * 100);
  return (
    <div className="upload-progress">
      <div
        className="progress"
        role="progressbar"
        aria-label="Upload progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <div className="progress-bar" style={{ width: `${percent}%` }} />
      </div>
      <span className="progress-label">{percent}%</span>
    </div>
  );
}
