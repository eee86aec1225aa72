import { runService } from "@transcribe/platform";
import { z } from "zod";
import { migrations } from "./db/migrations.js";

await runService({
  name: "blog",
  defaultPort: 7007,
  config: z.object({}),
  migrations,
  build: () => ({}),
});
