import type { ColumnType, Generated } from "kysely";

export interface PostsTable {
  id: Generated<string>;
  slug: string;
  title: string;
  subtitle: string;
  meta_description: string;
  body_markdown: string;
  author: string;
  cover_image_url: string | null;
  tags: ColumnType<string[], string[] | undefined, string[]>;
  published_at: Date;
  updated_at: ColumnType<Date, Date | undefined, Date>;
  unpublished: ColumnType<boolean, boolean | undefined, boolean>;
  created_at: Generated<Date>;
}

export interface WebhookDeliveriesTable {
  /** SHA-256 of the signature: a delivery is accepted once. */
  signature_hash: string;
  action: string;
  slug: string;
  received_at: Generated<Date>;
}

export interface BlogDatabase {
  posts: PostsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}
