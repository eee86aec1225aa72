#!/usr/bin/env node
// Browser check of the public blog (decision 0012): /blog lists the seeded posts under the title
// 'Blog | <brand>' with the spec's description; opening a post titles the page after it;
// an unknown slug shows 'Post not found'.
// Usage: node web/e2e/blog.mjs <base-url>
import { checklist, launchBrowser, visible } from "./lib/sign-in.mjs";

const [baseUrl] = process.argv.slice(2);
if (!baseUrl) {
  console.error("usage: node web/e2e/blog.mjs <base-url>");
  process.exit(2);
}
const brand = process.env.VITE_BRAND?.trim() || "Transcribe";
const { check, report } = checklist();
const browser = await launchBrowser();
try {
  const page = await browser.newPage();
  await page.goto(`${baseUrl}/blog`);
  const firstPost = page.locator('a[href^="/blog/"]').first();
  check("/blog lists at least one post", await visible(firstPost, 15_000));
  check("/blog is titled 'Blog | <brand>'", (await page.title()) === `Blog | ${brand}`, await page.title());
  const description = await page.locator('meta[name="description"]').last().getAttribute("content");
  check("/blog has the spec's description", description === "Insights on AI, transcription, and building products fast.", String(description));

  const href = await firstPost.getAttribute("href");
  await firstPost.click();
  await page.waitForURL(`**${href}`, { timeout: 15_000 });
  const slug = String(href).replace(/^\/blog\//, "");
  const api = await (await fetch(`${baseUrl}/api/v1/blog/posts/${slug}`)).json();
  const postTitle = api?.post?.title ?? "";
  check("the post opens with its title on the page", await visible(page.getByRole("heading", { name: postTitle }).first(), 15_000), postTitle);
  await page.waitForFunction((expected) => document.title === expected, `${postTitle} | ${brand}`, { timeout: 10_000 }).catch(() => {});
  check("the post's document title is '<post title> | <brand>'", (await page.title()) === `${postTitle} | ${brand}`, await page.title());

  await page.goto(`${baseUrl}/blog/nope-${Date.now()}`);
  check("an unknown slug shows 'Post not found'", await visible(page.getByText("Post not found").first(), 15_000));
} finally {
  await browser.close();
}
process.exit(report("blog"));
