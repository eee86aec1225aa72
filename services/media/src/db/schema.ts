import type { PlatformEventTables } from "@transcribe/platform";
import type { ColumnType, Generated, Selectable } from "kysely";

export type FileStatus = "uploading" | "processing" | "ready" | "failed";

export interface FilesTable {
  id: string;
  user_id: string;
  file_name: string;
  file_size: number;
  content_type: string;
  /** Seconds: as declared until processing measures it. */
  duration: number;
  raw_key: string;
  processed_key: string | null;
  chunks: ColumnType<string[], string[] | undefined, string[]>;
  status: FileStatus;
  error: string | null;
  /** Set for ImportFromUrl records: the fetch is the first step of processing. */
  source_url: string | null;
  upload_expires_at: Date | null;
  attempts: Generated<number>;
  lease_until: Date | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface MediaDatabase extends PlatformEventTables {
  files: FilesTable;
}

export type FileRow = Selectable<FilesTable>;
