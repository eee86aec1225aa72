// The public blog (GET /api/v1/blog/posts, /blog/posts/{slug}): no session needed.
import { api } from "./index";
import { zBlogPostList, zBlogPostResponse } from "./generated/zod.gen";

export const blogQueryKeys = {
  list: ["blog", "list"] as const,
  post: (slug: string) => ["blog", "post", slug] as const,
};

export function listBlogPosts(signal?: AbortSignal) {
  return api.request({ path: "/blog/posts", query: { limit: 50 }, schema: zBlogPostList, signal });
}

export function getBlogPost(slug: string, signal?: AbortSignal) {
  return api.request({ path: "/blog/posts/{slug}", params: { slug }, schema: zBlogPostResponse, signal });
}

/** The page description of a post: its metaDescription, else its subtitle (docs/requirements.md "Screens"). */
export function postDescription(post: { metaDescription: string; subtitle: string }): string {
  return post.metaDescription.trim() || post.subtitle;
}
