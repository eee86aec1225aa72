import { runService } from "@transcribe/platform";
import { z } from "zod";
import { migrations } from "./db/migrations.js";

await runService({
  name: "export",
  defaultPort: 7006,
  config: z.object({}),
  migrations,
  build: () => ({}),
});
