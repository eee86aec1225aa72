import { runService } from "@transcribe/platform";
import { z } from "zod";
import { migrations } from "./db/migrations.js";

// The worker is its own process so it scales apart from the API; it shares the
// transcription database, where it leases jobs.
await runService({
  name: "transcription-worker",
  defaultPort: 7004,
  config: z.object({}),
  migrations,
  build: () => ({}),
});
