import { runService } from "@transcribe/platform";
import { z } from "zod";
import { migrations } from "./db/migrations.js";

await runService({
  name: "auth",
  defaultPort: 7001,
  config: z.object({}),
  migrations,
  build: () => ({}),
});
