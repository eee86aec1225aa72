import { sql } from "kysely";
import type { Migrations } from "@transcribe/platform";
import { seedPosts } from "./seed-posts.js";

/** The blog service's schema: blog posts. Append new migrations; never edit applied ones. */
export const migrations: Migrations = {
  "0001_posts": {
    async up(db) {
      await sql`
        create table posts (
          id uuid primary key default gen_random_uuid(),
          slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(slug) <= 200),
          title text not null,
          subtitle text not null default '',
          meta_description text not null default '',
          body_markdown text not null,
          author text not null default '',
          cover_image_url text,
          tags text[] not null default '{}',
          published_at timestamptz not null,
          updated_at timestamptz not null default now(),
          unpublished boolean not null default false,
          created_at timestamptz not null default now()
        )`.execute(db);
      await sql`create index posts_listed on posts (published_at desc, id) where not unpublished`.execute(db);
      // Every accepted webhook delivery, by its signature's hash: a replayed one is refused.
      // Rows older than the replay window can go (their timestamps are refused anyway).
      await sql`
        create table webhook_deliveries (
          signature_hash text primary key,
          action text not null,
          slug text not null,
          received_at timestamptz not null default now()
        )`.execute(db);
      await sql`create index webhook_deliveries_received_at on webhook_deliveries (received_at)`.execute(db);
    },
  },
  "0002_seed_posts": {
    async up(db) {
      for (const post of seedPosts) {
        await sql`
          insert into posts (slug, title, subtitle, meta_description, body_markdown, author, tags, published_at, updated_at)
          values (${post.slug}, ${post.title}, ${post.subtitle}, ${post.metaDescription}, ${post.bodyMarkdown}, ${post.author},
                  ${sql.val(post.tags)}::text[], ${post.publishedAt}::timestamptz, ${post.publishedAt}::timestamptz)
          on conflict (slug) do nothing`.execute(db);
      }
    },
  },
};
