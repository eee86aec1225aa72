import { runService } from "@transcribe/platform";
import { buildMedia } from "./app.js";
import { mediaConfigSchema } from "./config.js";
import { migrations } from "./db/migrations.js";
import { checkTools, MissingToolError } from "./processing/ffmpeg.js";

await runService({
  name: "media",
  defaultPort: 7002,
  config: mediaConfigSchema,
  migrations,
  async build(context) {
    try {
      const versions = await checkTools({ ffmpeg: context.config.FFMPEG_PATH, ffprobe: context.config.FFPROBE_PATH });
      context.logger.info(versions, "ffmpeg found");
    } catch (error) {
      if (!(error instanceof MissingToolError)) throw error;
      // One clear line and exit 1, like a configuration error: the launcher shows it.
      process.stderr.write(`media: ${error.message}\n`);
      process.exit(1);
    }
    return buildMedia(context);
  },
});
