import { runService } from "@transcribe/platform";
import { z } from "zod";
import { migrations } from "./db/migrations.js";

await runService({
  name: "billing",
  defaultPort: 7005,
  config: z.object({}),
  migrations,
  build: () => ({}),
});
