import { runService } from "@transcribe/platform";
import { z } from "zod";
import { migrations } from "./db/migrations.js";

await runService({
  name: "notifier",
  defaultPort: 7008,
  config: z.object({}),
  migrations,
  build: () => ({}),
});
