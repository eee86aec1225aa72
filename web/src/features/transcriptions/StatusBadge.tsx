import { Badge, type BadgeVariant } from "../../components/ui";
import type { TranscriptionDetail } from "../../lib/api/generated/zod.gen";

type TranscriptionStatus = TranscriptionDetail["status"];

const VARIANT: Record<TranscriptionStatus, BadgeVariant> = {
  pending: "neutral",
  processing: "info",
  transcribing: "info",
  completed: "success",
  failed: "danger",
  deleted: "warning",
};

const LABEL: Record<TranscriptionStatus, string> = {
  pending: "Pending",
  processing: "Processing",
  transcribing: "Transcribing",
  completed: "Completed",
  failed: "Failed",
  deleted: "Deleted",
};

export const IN_PROGRESS_STATUSES: ReadonlySet<TranscriptionStatus> = new Set(["pending", "processing", "transcribing"]);

export function StatusBadge({ status }: { status: TranscriptionStatus }) {
  return <Badge variant={VARIANT[status]}>{LABEL[status]}</Badge>;
}
