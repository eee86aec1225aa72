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
  "0002_notifier_002_tickets": {
    async up(db: Kysely<any>) {
      // The support and contact forms: every message is kept, mailed or not.
      await sql`
        create table tickets (
          id uuid primary key,
          kind text not null check (kind in ('support', 'contact')),
          user_id text,
          name text not null default '',
          email text not null,
          subject text not null,
          message text not null,
          transcription_id text,
          mailed_at timestamptz,
          created_at timestamptz not null default now()
        )`.execute(db);
      await sql`create index tickets_created_at on tickets (created_at)`.execute(db);
    },
  },
};

export interface TicketsTable {
  id: string;
  kind: "support" | "contact";
  user_id: string | null;
  name: string;
  email: string;
  subject: string;
  message: string;
  transcription_id: string | null;
  mailed_at: Date | null;
  created_at: Generated<Date>;
}

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
  tickets: TicketsTable;
}
