import { timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  createDatabase,
  createLogger,
  createServiceClient,
  migrateToLatest,
  outboxMigrations,
  startServiceServer,
  type Database,
  type ServiceServer,
} from "@transcribe/platform";
import { createTestDatabase, freePort } from "@transcribe/platform/testing";
import { BlogService } from "@transcribe/proto/blog/v1/blog";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blogConfigSchema } from "../src/config.js";
import { migrations } from "../src/db/migrations.js";
import type { BlogDatabase } from "../src/db/schema.js";
import { seedPosts } from "../src/db/seed-posts.js";
import { renderMarkdown } from "../src/markdown.js";
import { buildBlogService } from "../src/service.js";
import { signWebhookBody } from "../src/webhook.js";

const SECRET = "test-webhook-secret-0123456789";
const logger = createLogger("blog-test", "silent");

describe("renderMarkdown", () => {
  it("drops script, event handlers and javascript: URLs", () => {
    const html = renderMarkdown(
      [
        "# Hello",
        "<script>alert(1)</script>",
        '<img src="x.png" onerror="alert(2)">',
        '<a href="javascript:alert(3)" onclick="alert(4)">click</a>',
        "[link](javascript:alert(5)) and [ok](https://example.com)",
        "![pic](javascript:alert(6))",
        '<iframe src="https://evil.example"></iframe><svg onload="alert(7)"></svg>',
        "<a href=\"JaVaScRiPt&#58;alert(8)\">x</a>",
      ].join("\n\n"),
    );
    expect(html).toContain("<h1>Hello</h1>");
    expect(html).toContain('href="https://example.com"');
    expect(html.toLowerCase()).not.toContain("<script");
    expect(html.toLowerCase()).not.toContain("onerror");
    expect(html.toLowerCase()).not.toContain("onclick");
    expect(html.toLowerCase()).not.toContain("onload");
    expect(html.toLowerCase()).not.toContain("javascript:");
    expect(html.toLowerCase()).not.toContain("<iframe");
    expect(html).not.toContain("alert(");
  });
});

describe("BlogService (real PostgreSQL, Connect)", () => {
  let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
  let database: Database<BlogDatabase>;
  let server: ServiceServer;
  let client: ReturnType<typeof createServiceClient<typeof BlogService>>;
  const clock = new Date("2025-06-01T12:00:00Z");

  beforeAll(async () => {
    testDb = await createTestDatabase("blog");
    database = createDatabase<BlogDatabase>(testDb.url, { max: 4 });
    await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
    const config = blogConfigSchema.parse({ BLOG_WEBHOOK_SECRET: SECRET, BLOG_WEBHOOK_MAX_AGE_SECONDS: "300" });
    const built = buildBlogService({ config, logger, database, now: () => clock });
    server = await startServiceServer({ name: "blog", host: "127.0.0.1", port: await freePort(), logger, routes: built.parts.routes! });
    client = createServiceClient(BlogService, server.url);
  });

  afterAll(async () => {
    await server?.close();
    await database?.close();
    await testDb?.drop();
  });

  const snapshot = () => database.db.selectFrom("posts").selectAll().orderBy("slug").execute();
  const deliver = (payload: unknown, sign: (body: string) => string = (b) => signWebhookBody(b, SECRET)) => {
    const body = JSON.stringify(payload);
    return client.handleWebhook({ body, signature: sign(body) });
  };
  const post = (slug: string, extra: Record<string, unknown> = {}) => ({
    slug,
    title: `Title of ${slug}`,
    subtitle: "A subtitle",
    meta_description: "",
    body_markdown: "Hello **world**",
    author: "Tester",
    tags: ["test"],
    ...extra,
  });

  it("seeds a few real posts and lists them newest first, without bodies", async () => {
    const { posts, totalCount } = await client.listPosts({});
    expect(totalCount).toBe(seedPosts.length);
    const sorted = [...seedPosts].sort((a, b) => b.publishedAt.localeCompare(a.publishedAt));
    expect(posts.map((p) => p.slug)).toEqual(sorted.map((p) => p.slug));
    expect(posts.every((p) => p.bodyMarkdown === "" && p.bodyHtml === "")).toBe(true);
    expect(timestampDate(posts[0]!.publishedAt!).toISOString()).toBe(new Date(sorted[0]!.publishedAt).toISOString());
  });

  it("pages the list and refuses negative limits", async () => {
    const page = await client.listPosts({ limit: 1, offset: 1 });
    expect(page.posts).toHaveLength(1);
    expect(page.totalCount).toBe(seedPosts.length);
    await expect(client.listPosts({ limit: -1 })).rejects.toMatchObject({ code: Code.InvalidArgument });
  });

  it("returns one post by slug with its body rendered to HTML", async () => {
    const { post: found } = await client.getPost({ slug: "five-tips-for-better-transcripts" });
    expect(found!.title).toBe("Five tips for better transcripts");
    expect(found!.bodyMarkdown).toContain("**Get the microphone close.**");
    expect(found!.bodyHtml).toContain("<strong>Get the microphone close.</strong>");
  });

  it("answers NOT_FOUND 'Post not found' for an unknown slug", async () => {
    const error = await client.getPost({ slug: "nope" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as ConnectError).code).toBe(Code.NotFound);
    expect((error as ConnectError).rawMessage).toBe("Post not found");
  });

  it("creates, updates and unpublishes posts through a signed webhook", async () => {
    const timestamp = Math.floor(clock.getTime() / 1000);
    expect((await deliver({ action: "create", timestamp, post: post("hooked", { published_at: "2025-05-01T00:00:00Z" }) })).received).toBe(true);
    expect((await client.getPost({ slug: "hooked" })).post!.bodyHtml).toContain("<strong>world</strong>");

    await deliver({ action: "update", timestamp: timestamp + 1, post: post("hooked", { title: "Renamed" }) });
    expect((await client.getPost({ slug: "hooked" })).post!.title).toBe("Renamed");

    await deliver({ action: "unpublish", timestamp: clock.toISOString(), post: { slug: "hooked" } });
    await expect(client.getPost({ slug: "hooked" })).rejects.toMatchObject({ code: Code.NotFound });
    expect((await client.listPosts({})).posts.map((p) => p.slug)).not.toContain("hooked");
  });

  it("renders a webhook post whose Markdown carries script, onerror and javascript: without them", async () => {
    const markdown = '<script>alert(1)</script>\n\n<img src="a.png" onerror="alert(2)">\n\n[x](javascript:alert(3))';
    await deliver({ action: "create", timestamp: Math.floor(clock.getTime() / 1000), post: post("xss", { body_markdown: markdown }) });
    const html = (await client.getPost({ slug: "xss" })).post!.bodyHtml;
    expect(html).toContain("<img");
    expect(html).not.toMatch(/<script|onerror|javascript:/i);
  });

  it("refuses bad, missing and replayed signatures and stale timestamps, changing nothing", async () => {
    const before = await snapshot();
    const deliveriesBefore = await database.db.selectFrom("webhook_deliveries").selectAll().execute();
    const timestamp = Math.floor(clock.getTime() / 1000);
    const payload = { action: "create", timestamp, post: post("refused") };

    const refusals = [
      deliver(payload, () => "0".repeat(64)),
      deliver(payload, () => ""),
      deliver(payload, (b) => signWebhookBody(b, "another-secret-0123456789")),
      deliver(payload, (b) => signWebhookBody(`${b} `, SECRET)),
      deliver({ ...payload, timestamp: timestamp - 301 }),
      deliver({ ...payload, timestamp: timestamp + 301 }),
    ];
    for (const refusal of refusals) await expect(refusal).rejects.toMatchObject({ code: Code.Unauthenticated });
    expect(await snapshot()).toEqual(before);
    expect(await database.db.selectFrom("webhook_deliveries").selectAll().execute()).toEqual(deliveriesBefore);

    // Accepted once; the very same delivery again is refused and changes nothing: the
    // post unpublished in between stays unpublished.
    const createBody = JSON.stringify({ action: "create", timestamp, post: post("replayed") });
    const createSignature = signWebhookBody(createBody, SECRET);
    expect((await client.handleWebhook({ body: createBody, signature: createSignature })).received).toBe(true);
    await deliver({ action: "unpublish", timestamp: timestamp + 2, post: { slug: "replayed" } });
    const afterUnpublish = await snapshot();
    await expect(client.handleWebhook({ body: createBody, signature: createSignature })).rejects.toMatchObject({
      code: Code.Unauthenticated,
      rawMessage: "Webhook delivery already received",
    });
    await expect(client.handleWebhook({ body: createBody, signature: createSignature.toUpperCase() })).rejects.toMatchObject({
      code: Code.Unauthenticated,
    });
    expect(await snapshot()).toEqual(afterUnpublish);
    await expect(client.getPost({ slug: "replayed" })).rejects.toMatchObject({ code: Code.NotFound });
  }, 30_000);
});
