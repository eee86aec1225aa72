import { runService } from "@transcribe/platform";
import { z } from "zod";
import { migrations } from "./db/migrations.js";

await runService({
  name: "transcription",
  defaultPort: 7003,
  config: z.object({}),
  migrations,
  build: () => ({}),
});
