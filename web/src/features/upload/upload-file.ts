// The browser half of an upload (docs/requirements.md "Validation", docs/api.md): the client-side checks with the
// spec's exact messages, the duration read from a media element, and the PUT of the bytes
// with progress (fetch cannot report upload progress, XMLHttpRequest can).
import { httpErrorMessage } from "../../lib/api/errors";
import { type AllowedContentType, uploadFormSchema } from "../../lib/form-rules";

/** Browsers leave `type` empty for some files (often .m4a/.flac on Windows): guess from the extension. */
const CONTENT_TYPE_BY_EXTENSION: Record<string, AllowedContentType> = {
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".m4a": "audio/mp4",
  ".flac": "audio/flac",
  ".ogg": "audio/ogg",
  ".mp4": "video/mp4",
  ".webm": "audio/webm",
};

export function contentTypeOf(file: Pick<File, "name" | "type">): string {
  if (file.type) return file.type;
  const extension = /\.[A-Za-z0-9]+$/.exec(file.name)?.[0]?.toLowerCase();
  return (extension && CONTENT_TYPE_BY_EXTENSION[extension]) || "";
}

/** The checks that need no reading of the file, in the form's order; [] when it may be sent. */
export function checkFile(file: Pick<File, "name" | "size" | "type">): string[] {
  const result = uploadFormSchema
    .omit({ duration: true })
    .safeParse({ fileName: file.name, fileSize: file.size, contentType: contentTypeOf(file) });
  if (result.success) return [];
  return [...new Set(result.error.issues.map((issue) => issue.message))];
}

export const DURATION_UNREADABLE = "Could not read the duration of this file. Is it a valid audio or video file?";
const DURATION_TIMEOUT_MS = 20_000;

/** The media's duration in seconds, from an <audio>/<video> element's metadata on an object URL. */
export function readMediaDuration(file: File, contentType = contentTypeOf(file)): Promise<number> {
  return new Promise((resolve, reject) => {
    const element = document.createElement(contentType.startsWith("video/") ? "video" : "audio");
    const url = URL.createObjectURL(file);
    let settled = false;
    const finish = (duration: number | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      element.removeAttribute("src");
      element.load();
      URL.revokeObjectURL(url);
      if (duration !== undefined && Number.isFinite(duration) && duration > 0) resolve(duration);
      else reject(new Error(DURATION_UNREADABLE));
    };
    const timer = setTimeout(() => finish(undefined), DURATION_TIMEOUT_MS);
    element.preload = "metadata";
    element.muted = true;
    element.addEventListener("error", () => finish(undefined));
    element.addEventListener("loadedmetadata", () => {
      if (Number.isFinite(element.duration)) return finish(element.duration);
      // WebM/Opus recorded by browsers often has no duration in its header: seeking far past
      // the end makes the element scan the file and report the real duration.
      element.addEventListener("durationchange", () => {
        if (Number.isFinite(element.duration)) finish(element.duration);
      });
      element.currentTime = Number.MAX_SAFE_INTEGER;
    });
    element.src = url;
  });
}

export class UploadAbortedError extends Error {
  override readonly name = "UploadAbortedError";
  constructor() {
    super("Upload cancelled");
  }
}

export interface PutOptions {
  url: string;
  file: Blob;
  contentType: string;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

/** PUTs the bytes to the signed upload URL; rejects with the server's message, or UploadAbortedError. */
export function putFile({ url, file, contentType, onProgress, signal }: PutOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new UploadAbortedError());
    const xhr = new XMLHttpRequest();
    const onAbort = () => xhr.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    const done = () => signal?.removeEventListener("abort", onAbort);
    xhr.open("PUT", url);
    xhr.setRequestHeader("Content-Type", contentType);
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable && event.total > 0) onProgress?.(event.loaded / event.total);
    });
    xhr.addEventListener("load", () => {
      done();
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress?.(1);
        return resolve();
      }
      let body: unknown;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      reject(new Error(httpErrorMessage(body, xhr.statusText || `Upload failed (${xhr.status})`)));
    });
    xhr.addEventListener("error", () => {
      done();
      reject(new Error("Upload failed: the connection was interrupted."));
    });
    xhr.addEventListener("abort", () => {
      done();
      reject(new UploadAbortedError());
    });
    xhr.send(file);
  });
}
