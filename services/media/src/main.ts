import { runService } from "@transcribe/platform";
import { buildMedia } from "./app.js";
import { mediaConfigSchema } from "./config.js";
import { migrations } from "./db/migrations.js";
import { chooseTools, MissingToolError } from "./processing/ffmpeg-binaries.js";

await runService({
  name: "media",
  defaultPort: 7002,
  config: mediaConfigSchema,
  migrations,
  async build(context) {
    try {
      const { ffmpeg, ffprobe } = await chooseTools(context.config);
      context.logger.info({ ffmpeg, ffprobe }, `ffmpeg: ${ffmpeg.source} ${ffmpeg.path} (${ffmpeg.version}); ffprobe: ${ffprobe.source} ${ffprobe.path} (${ffprobe.version})`);
      return await buildMedia(context, { tools: { ffmpeg: ffmpeg.path, ffprobe: ffprobe.path } });
    } catch (error) {
      if (!(error instanceof MissingToolError)) throw error;
      // One clear line and exit 1, like a configuration error: the launcher shows it.
      process.stderr.write(`media: ${error.message}\n`);
      process.exit(1);
    }
  },
});
