import { runService } from "@transcribe/platform";
import { z } from "zod";
import { migrations } from "./db/migrations.js";

await runService({
  name: "media",
  defaultPort: 7002,
  config: z.object({}),
  migrations,
  build: () => ({}),
});
