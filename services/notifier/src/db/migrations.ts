import type { Migrations } from "@transcribe/platform";
import { type Generated, type Kysely, sql } from "kysely";

/** The notifier service's schema: the outgoing mail log. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {
  "0001_notifier_001_mail_log": {
    async up(db: Kysely<any>) {
      // One row per mail sent. Bodies are not kept: they carry sign-in and deletion links.
      await sql`
        create table mail_log (
          event_id uuid primary key,
          kind text not null,
          recipient text not null,
          subject text not null,
          message_id text not null,
          transport text not null,
          sent_at timestamptz not null default now()
        )`.execute(db);
      await sql`create index mail_log_recipient on mail_log (recipient, sent_at)`.execute(db);
    },
  },
};

export interface MailLogTable {
  event_id: string;
  kind: string;
  recipient: string;
  subject: string;
  message_id: string;
  /** "smtp" or "log" (development without SMTP_URL). */
  transport: string;
  sent_at: Generated<Date>;
}

export interface NotifierDatabase {
  mail_log: MailLogTable;
}
