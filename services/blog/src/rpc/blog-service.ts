import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ConnectRouter } from "@connectrpc/connect";
import { BlogService, PostSchema, type Post } from "@transcribe/proto/blog/v1/blog";
import type { BlogPost, BlogStore } from "../posts.js";

/** Thin: requests to BlogStore, its posts to protobuf. */
export function blogRoutes(store: BlogStore): (router: ConnectRouter) => void {
  return (router) => {
    router.service(BlogService, {
      async listPosts(request) {
        const { posts, totalCount } = await store.list(request.limit, request.offset);
        return { posts: posts.map(toProto), totalCount };
      },
      async getPost(request) {
        return { post: toProto(await store.get(request.slug)) };
      },
      async handleWebhook(request) {
        await store.handleWebhook(request.body, request.signature);
        return { received: true };
      },
    });
  };
}

function toProto(post: BlogPost): Post {
  return create(PostSchema, {
    id: post.id,
    slug: post.slug,
    title: post.title,
    subtitle: post.subtitle,
    metaDescription: post.metaDescription,
    bodyMarkdown: post.bodyMarkdown,
    bodyHtml: post.bodyHtml,
    author: post.author,
    ...(post.coverImageUrl ? { coverImageUrl: post.coverImageUrl } : {}),
    tags: post.tags,
    publishedAt: timestampFromDate(post.publishedAt),
    updatedAt: timestampFromDate(post.updatedAt),
  });
}
