import type { ColumnType, Generated } from "kysely";

export interface ExportsTable {
  id: string;
  user_id: string;
  transcription_id: string;
  format: string;
  object_key: string;
  file_name: string;
  content_type: string;
  size_bytes: ColumnType<number, number | undefined, number>;
  created_at: Generated<Date>;
  expires_at: Date;
  revision: ColumnType<number | null, number | null | undefined, number | null>;
  pinned: ColumnType<boolean, boolean | undefined, boolean>;
}

export interface ExportDatabase {
  exports: ExportsTable;
}
