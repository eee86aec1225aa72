import { runService } from "@transcribe/platform";
import { blogConfigSchema } from "./config.js";
import { migrations } from "./db/migrations.js";
import { buildBlogService } from "./service.js";

await runService({
  name: "blog",
  defaultPort: 7007,
  config: blogConfigSchema,
  migrations,
  build: ({ config, logger, database }) => buildBlogService({ config, logger, database: database! }).parts,
});
