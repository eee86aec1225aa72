import { createFileRoute, Link, notFound } from "@tanstack/react-router";
import { getBlogPost, postDescription } from "../../lib/api/blog";
import { pageTitle } from "../../lib/site-config";

export const Route = createFileRoute("/_public/blog/$slug")({
  // Any load failure (unknown slug, unpublished, network) is the post's 404 (docs/requirements.md "Screens").
  loader: async ({ params, abortController }) => {
    try {
      return (await getBlogPost(params.slug, abortController.signal)).post;
    } catch {
      throw notFound();
    }
  },
  head: ({ loaderData }) => ({
    meta: loaderData
      ? [{ title: pageTitle(loaderData.title) }, { name: "description", content: postDescription(loaderData) }]
      : [{ title: pageTitle("Post not found") }],
  }),
  component: BlogPostPage,
  notFoundComponent: PostNotFound,
});

function BlogPostPage() {
  const post = Route.useLoaderData();
  return (
    <article className="container prose">
      <p>
        <Link to="/blog">← All posts</Link>
      </p>
      <h1>{post.title}</h1>
      {post.subtitle ? <p className="lead">{post.subtitle}</p> : null}
      <p className="muted">
        {post.author}
        {post.publishedAt ? (
          <>
            {post.author ? " · " : null}
            <time dateTime={post.publishedAt}>{new Date(post.publishedAt).toLocaleDateString()}</time>
          </>
        ) : null}
      </p>
      {/* bodyHtml is sanitized by the blog service (no script, event handlers or javascript: URLs). */}
      <div className="blog-body" dangerouslySetInnerHTML={{ __html: post.bodyHtml }} />
    </article>
  );
}

function PostNotFound() {
  return (
    <div className="container prose">
      <h1>Post not found</h1>
      <p>This post does not exist or is no longer published.</p>
      <p>
        <Link to="/blog">See all posts</Link>
      </p>
    </div>
  );
}
