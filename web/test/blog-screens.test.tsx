import { screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { json, sessionAnswer, stubNetwork } from "./fake-network";
import { renderApp } from "./render-app";

const post = {
  slug: "five-tips",
  title: "Five tips for better transcripts",
  subtitle: "Small recording habits",
  meta_description: "",
  body_markdown: "",
  body_html: "<p>Get the <strong>microphone</strong> close.</p>",
  author: "The team",
  cover_image_url: null,
  tags: [],
  published_at: "2025-02-03T09:00:00.000Z",
  updated_at: "2025-02-03T09:00:00.000Z",
  id: "p1",
};

const description = () => document.head.querySelector('meta[name="description"]')?.getAttribute("content");

describe("blog screens", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("/blog is titled 'Blog | {brand}' with the spec's description and lists the posts", async () => {
    stubNetwork({
      "GET /auth/get-session": sessionAnswer(null),
      "GET /api/v1/blog/posts": json({ posts: [{ ...post, body_html: "" }], total_count: 1 }),
    });
    renderApp(["/blog"]);
    expect(await screen.findByRole("heading", { level: 1, name: "Blog" })).toBeInTheDocument();
    expect(await screen.findByRole("link", { name: post.title })).toHaveAttribute("href", "/blog/five-tips");
    await waitFor(() => expect(document.title).toBe("Blog | Transcribe"));
    expect(description()).toBe("Insights on AI, transcription, and building products fast.");
  });

  it("/blog/{slug} is titled with the post and described by its subtitle when metaDescription is empty", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(null), "GET /api/v1/blog/posts/five-tips": json({ post }) });
    renderApp(["/blog/five-tips"]);
    expect(await screen.findByRole("heading", { level: 1, name: post.title })).toBeInTheDocument();
    expect(screen.getByText("microphone").tagName).toBe("STRONG");
    await waitFor(() => expect(document.title).toBe(`${post.title} | Transcribe`));
    expect(description()).toBe("Small recording habits");
  });

  it("uses metaDescription when the post has one", async () => {
    stubNetwork({
      "GET /auth/get-session": sessionAnswer(null),
      "GET /api/v1/blog/posts/five-tips": json({ post: { ...post, meta_description: "Cleaner transcripts." } }),
    });
    renderApp(["/blog/five-tips"]);
    await screen.findByRole("heading", { level: 1, name: post.title });
    await waitFor(() => expect(description()).toBe("Cleaner transcripts."));
  });

  it("an unknown slug shows 'Post not found'", async () => {
    stubNetwork({ "GET /auth/get-session": sessionAnswer(null) }); // the fake answers 404 for the post
    renderApp(["/blog/nope"]);
    expect(await screen.findByRole("heading", { level: 1, name: "Post not found" })).toBeInTheDocument();
    expect(screen.queryByText("Page Not Found")).not.toBeInTheDocument();
  });
});
