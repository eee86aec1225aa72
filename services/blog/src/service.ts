import type { Database, Logger, ServiceParts } from "@transcribe/platform";
import type { BlogConfig } from "./config.js";
import type { BlogDatabase } from "./db/schema.js";
import { BlogStore } from "./posts.js";
import { blogRoutes } from "./rpc/blog-service.js";

export interface BlogServiceDependencies {
  config: BlogConfig;
  logger: Logger;
  database: Database<BlogDatabase>;
  now?: () => Date;
}

/** The blog's Connect routes over its store; main.ts hands them to runService, tests to startServiceServer. */
export function buildBlogService(deps: BlogServiceDependencies): { parts: ServiceParts; store: BlogStore } {
  if (!deps.config.BLOG_WEBHOOK_SECRET) deps.logger.warn("BLOG_WEBHOOK_SECRET is not set: blog webhook deliveries are refused");
  const store = new BlogStore({
    db: deps.database.db,
    logger: deps.logger,
    webhookSecret: deps.config.BLOG_WEBHOOK_SECRET,
    replayWindowMs: deps.config.BLOG_WEBHOOK_MAX_AGE_SECONDS * 1000,
    ...(deps.now ? { now: deps.now } : {}),
  });
  return { parts: { routes: blogRoutes(store) }, store };
}
