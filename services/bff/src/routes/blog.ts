import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Client } from "@connectrpc/connect";
import type { BlogService, Post } from "@transcribe/proto/blog/v1/blog";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { apiErrorSchema } from "../http/api-error.js";
import { security } from "../http/openapi.js";

export const blogPostSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    title: z.string(),
    subtitle: z.string(),
    meta_description: z.string().describe("Page description; fall back to subtitle when empty"),
    body_markdown: z.string().describe("Empty in list entries"),
    body_html: z.string().describe("The body rendered and sanitized on the server (no script, event handlers or javascript: URLs); empty in list entries"),
    author: z.string(),
    cover_image_url: z.string().nullable(),
    tags: z.array(z.string()),
    published_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: "BlogPost", description: "A published post" });

export const blogPostListSchema = z
  .object({ posts: z.array(blogPostSchema), total_count: z.number().int() })
  .meta({ id: "BlogPostList", description: "One page of published posts, newest first" });

export const blogWebhookRequestSchema = z
  .object({
    body: z.string().min(1).max(1_000_000).describe("The JSON delivery exactly as signed: {action: create|update|unpublish, timestamp, post}"),
    signature: z.string().max(200).describe("Hex HMAC-SHA256 of body with BLOG_WEBHOOK_SECRET"),
  })
  .meta({ id: "BlogWebhookRequest", description: "A signed delivery from the publishing tool" });

const iso = (t: Post["publishedAt"]) => (t ? timestampDate(t) : new Date(0)).toISOString();

export function toBlogPost(post: Post): z.infer<typeof blogPostSchema> {
  return {
    id: post.id,
    slug: post.slug,
    title: post.title,
    subtitle: post.subtitle,
    meta_description: post.metaDescription,
    body_markdown: post.bodyMarkdown,
    body_html: post.bodyHtml,
    author: post.author,
    cover_image_url: post.coverImageUrl ?? null,
    tags: post.tags,
    published_at: iso(post.publishedAt),
    updated_at: iso(post.updatedAt),
  };
}

/** GET /api/v1/blog/posts, GET /api/v1/blog/posts/{slug}, POST /api/v1/blog/webhook (docs/requirements.md "Calls"): public. */
export const blogRoutes: FastifyPluginAsyncZod<{ client: Client<typeof BlogService> }> = async (app, { client }) => {
  app.get(
    "/api/v1/blog/posts",
    {
      config: { public: true },
      schema: {
        tags: ["blog"],
        operationId: "listBlogPosts",
        summary: "Published posts, newest first",
        security: security.none,
        querystring: z.object({
          limit: z.coerce.number().int().min(1).max(100).default(20),
          offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
        }),
        response: { 200: blogPostListSchema, 400: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      const result = await client.listPosts({ limit: request.query.limit, offset: request.query.offset });
      return { posts: result.posts.map(toBlogPost), total_count: result.totalCount };
    },
  );

  app.get(
    "/api/v1/blog/posts/:slug",
    {
      config: { public: true },
      schema: {
        tags: ["blog"],
        operationId: "getBlogPost",
        summary: "One published post; 404 'Post not found'",
        security: security.none,
        params: z.object({ slug: z.string().min(1).max(200).describe("The post's slug") }),
        response: { 200: z.object({ post: blogPostSchema }).meta({ id: "BlogPostResponse", description: "The post" }), 404: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      const { post } = await client.getPost({ slug: request.params.slug });
      if (!post) throw new Error("blog answered without a post");
      return { post: toBlogPost(post) };
    },
  );

  app.post(
    "/api/v1/blog/webhook",
    {
      config: { public: true },
      schema: {
        tags: ["blog"],
        operationId: "handleBlogWebhook",
        summary: "Signed post create/update/unpublish from the publishing tool",
        security: security.none,
        body: blogWebhookRequestSchema,
        response: { 200: z.object({ received: z.boolean() }).meta({ id: "BlogWebhookResponse", description: "The delivery was applied" }), 400: apiErrorSchema, 401: apiErrorSchema, 503: apiErrorSchema },
      },
    },
    async (request) => {
      const result = await client.handleWebhook({ body: request.body.body, signature: request.body.signature });
      return { received: result.received };
    },
  );
};
