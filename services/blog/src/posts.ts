import { AppError, type Logger } from "@transcribe/platform";
import { sql, type Kysely, type Selectable } from "kysely";
import type { BlogDatabase, PostsTable } from "./db/schema.js";
import { renderMarkdown } from "./markdown.js";
import { signatureHash, signatureMatches, timestampMs, webhookBodySchema } from "./webhook.js";

export const blogMessages = {
  notFound: "Post not found",
  badSignature: "Invalid webhook signature",
  notConfigured: "The blog webhook is not configured",
  stale: "Webhook timestamp outside the allowed window",
  replayed: "Webhook delivery already received",
  badBody: "Invalid webhook body",
} as const;

export interface BlogPost {
  id: string;
  slug: string;
  title: string;
  subtitle: string;
  metaDescription: string;
  bodyMarkdown: string;
  bodyHtml: string;
  author: string;
  coverImageUrl: string | undefined;
  tags: string[];
  publishedAt: Date;
  updatedAt: Date;
}

export interface BlogStoreOptions {
  db: Kysely<BlogDatabase>;
  logger: Logger;
  /** BLOG_WEBHOOK_SECRET; without it every webhook is refused. */
  webhookSecret: string | undefined;
  /** How far the body's timestamp may be from now, either way. */
  replayWindowMs: number;
  now?: () => Date;
}

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

export class BlogStore {
  private readonly now: () => Date;
  constructor(private readonly options: BlogStoreOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** Published posts, newest first; list entries carry no body. */
  async list(limit: number, offset: number): Promise<{ posts: BlogPost[]; totalCount: number }> {
    if (!Number.isInteger(limit) || limit < 0) throw new AppError("invalid_argument", "limit must not be negative");
    if (!Number.isInteger(offset) || offset < 0) throw new AppError("invalid_argument", "offset must not be negative");
    const take = limit === 0 ? DEFAULT_LIMIT : Math.min(limit, MAX_LIMIT);
    const published = this.options.db.selectFrom("posts").where("unpublished", "=", false).where("published_at", "<=", this.now());
    const [rows, count] = await Promise.all([
      published.selectAll().orderBy("published_at", "desc").orderBy("id").limit(take).offset(offset).execute(),
      published.select((eb) => eb.fn.countAll<string>().as("n")).executeTakeFirstOrThrow(),
    ]);
    return { posts: rows.map((row) => toPost(row, false)), totalCount: Number(count.n) };
  }

  async get(slug: string): Promise<BlogPost> {
    const row = await this.options.db
      .selectFrom("posts")
      .selectAll()
      .where("slug", "=", slug)
      .where("unpublished", "=", false)
      .where("published_at", "<=", this.now())
      .executeTakeFirst();
    if (!row) throw new AppError("not_found", blogMessages.notFound);
    return toPost(row, true);
  }

  /**
   * Verifies and applies one webhook delivery. Refusals (UNAUTHENTICATED for the
   * signature, its replay or a stale timestamp; INVALID_ARGUMENT for a bad body) change
   * nothing. The delivery is recorded in the same transaction as its change, so a
   * replay is refused even when two copies arrive at once.
   */
  async handleWebhook(body: string, signature: string): Promise<void> {
    const secret = this.options.webhookSecret;
    if (!secret) throw new AppError("unauthenticated", blogMessages.notConfigured);
    if (!signatureMatches(body, signature.trim(), secret)) throw new AppError("unauthenticated", blogMessages.badSignature);

    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new AppError("invalid_argument", blogMessages.badBody);
    }
    const parsed = webhookBodySchema.safeParse(json);
    if (!parsed.success) {
      throw new AppError("invalid_argument", blogMessages.badBody, { issues: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`) });
    }
    const delivery = parsed.data;
    const sentAt = timestampMs(delivery.timestamp);
    const now = this.now();
    if (!Number.isFinite(sentAt) || Math.abs(now.getTime() - sentAt) > this.options.replayWindowMs) {
      throw new AppError("unauthenticated", blogMessages.stale);
    }

    await this.options.db.transaction().execute(async (trx) => {
      const recorded = await trx
        .insertInto("webhook_deliveries")
        .values({ signature_hash: signatureHash(signature.trim()), action: delivery.action, slug: delivery.post.slug })
        .onConflict((oc) => oc.column("signature_hash").doNothing())
        .returning("signature_hash")
        .executeTakeFirst();
      if (!recorded) throw new AppError("unauthenticated", blogMessages.replayed);

      if (delivery.action === "unpublish") {
        await trx.updateTable("posts").set({ unpublished: true, updated_at: now }).where("slug", "=", delivery.post.slug).execute();
        return;
      }
      const post = delivery.post;
      const values = {
        title: post.title,
        subtitle: post.subtitle,
        meta_description: post.meta_description,
        body_markdown: post.body_markdown,
        author: post.author,
        cover_image_url: post.cover_image_url ?? null,
        tags: post.tags,
        updated_at: now,
        unpublished: false,
      };
      await trx
        .insertInto("posts")
        .values({ slug: post.slug, ...values, published_at: post.published_at ? new Date(post.published_at) : now })
        .onConflict((oc) =>
          oc.column("slug").doUpdateSet({ ...values, ...(post.published_at ? { published_at: new Date(post.published_at) } : {}) }),
        )
        .execute();
    });
    this.options.logger.info({ action: delivery.action, slug: delivery.post.slug }, "blog webhook applied");
    // Deliveries older than twice the window can never be replayed successfully.
    void this.options.db
      .deleteFrom("webhook_deliveries")
      .where("received_at", "<", sql<Date>`now() - make_interval(secs => ${(this.options.replayWindowMs * 2) / 1000})`)
      .execute()
      .catch((error: unknown) => this.options.logger.warn({ err: error }, "pruning webhook deliveries failed"));
  }
}

function toPost(row: Selectable<PostsTable>, withBody: boolean): BlogPost {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    subtitle: row.subtitle,
    metaDescription: row.meta_description,
    bodyMarkdown: withBody ? row.body_markdown : "",
    bodyHtml: withBody ? renderMarkdown(row.body_markdown) : "",
    author: row.author,
    coverImageUrl: row.cover_image_url ?? undefined,
    tags: row.tags,
    publishedAt: row.published_at,
    updatedAt: row.updated_at,
  };
}
