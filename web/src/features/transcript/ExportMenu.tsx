// The transcript's export menu (decision 0007): the service renders the file and answers a
// short-lived signed URL; the download then starts by itself through a hidden link.
import { useState } from "react";
import { toast } from "sonner";
import { Button, DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuLabel, DropdownMenuTrigger } from "../../components/ui";
import { exportTranscription } from "../../lib/api/product";
import { EXPORT_LABELS, EXPORT_MENU_FORMATS, type ExportFormat, SPEAKER_FORMATS } from "./export-labels";

/** Starts a download without leaving the page; the server's Content-Disposition names the file. */
export function startDownload(url: string): void {
  const link = document.createElement("a");
  link.href = url;
  link.download = "";
  link.rel = "noopener";
  link.style.display = "none";
  document.body.append(link);
  link.click();
  link.remove();
}

/** `withSpeakers`: the transcript has speaker turns, so RTTM is offered. */
export function ExportMenu({ transcriptionId, disabled = false, withSpeakers = false }: { transcriptionId: string; disabled?: boolean; withSpeakers?: boolean }) {
  const [busy, setBusy] = useState<ExportFormat | null>(null);

  const run = async (format: ExportFormat) => {
    const label = format.toUpperCase();
    const toastId = toast.loading(`Preparing ${label} export…`);
    setBusy(format);
    try {
      const { downloadUrl } = await exportTranscription(transcriptionId, format);
      startDownload(downloadUrl);
      toast.success(`${label} export ready — download started`, { id: toastId });
    } catch (error) {
      toast.error(`Export failed: ${error instanceof Error ? error.message : "unknown error"}`, { id: toastId });
    } finally {
      setBusy(null);
    }
  };

  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="secondary" disabled={disabled} loading={busy !== null}>
          Export
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent>
        <DropdownMenuLabel>Download as</DropdownMenuLabel>
        {EXPORT_MENU_FORMATS.filter((format) => withSpeakers || !SPEAKER_FORMATS.has(format)).map((format) => (
          <DropdownMenuItem key={format} onSelect={() => void run(format)}>
            {EXPORT_LABELS[format]}
          </DropdownMenuItem>
        ))}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
