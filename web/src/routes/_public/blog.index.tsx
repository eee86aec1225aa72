import { useQuery } from "@tanstack/react-query";
import { createFileRoute, Link } from "@tanstack/react-router";
import { Spinner } from "../../components/ui";
import { blogQueryKeys, listBlogPosts } from "../../lib/api/blog";
import { pageTitle } from "../../lib/site-config";

export const BLOG_DESCRIPTION = "Insights on AI, transcription, and building products fast.";

export const Route = createFileRoute("/_public/blog/")({
  head: () => ({ meta: [{ title: pageTitle("Blog") }, { name: "description", content: BLOG_DESCRIPTION }] }),
  component: BlogIndexPage,
});

function BlogIndexPage() {
  const posts = useQuery({ queryKey: blogQueryKeys.list, queryFn: ({ signal }) => listBlogPosts(signal) });
  return (
    <div className="container prose">
      <h1>Blog</h1>
      <p className="lead">{BLOG_DESCRIPTION}</p>
      {posts.isPending ? (
        <Spinner />
      ) : posts.isError ? (
        <p role="alert">The posts could not be loaded. Please try again later.</p>
      ) : posts.data.posts.length === 0 ? (
        <p>No posts yet.</p>
      ) : (
        <ul className="blog-list">
          {posts.data.posts.map((post) => (
            <li key={post.slug}>
              <h2>
                <Link to="/blog/$slug" params={{ slug: post.slug }}>
                  {post.title}
                </Link>
              </h2>
              {post.subtitle ? <p className="muted">{post.subtitle}</p> : null}
              {post.publishedAt ? (
                <p className="muted">
                  <time dateTime={post.publishedAt}>{new Date(post.publishedAt).toLocaleDateString()}</time>
                  {post.author ? ` · ${post.author}` : null}
                </p>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
