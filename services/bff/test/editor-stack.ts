import { createLogger, loadConfig } from "@transcribe/platform";
import { freePort } from "@transcribe/platform/testing";
import { type AuthHarness, signInWithMagicLink, startAuth } from "../../auth/test/harness.js";
import { migratedDatabase, startMediaServer, startTranscriptionApi } from "../../transcription/test/helpers.js";
import { buildBff } from "../src/app.js";
import { bffConfigSchema } from "../src/config.js";

/**
 * The real BFF in front of the real auth (magic-link sessions), media and transcription
 * services on a real database: what the editor and speaker tests call over HTTP, with the
 * database at hand to store a result as the worker stores it.
 */
export interface EditorStack {
  origin: string;
  db: Awaited<ReturnType<typeof migratedDatabase>>["db"];
  /** A request from the product's own page: its Origin, the cookie given, a JSON body. */
  api(cookie: string | undefined, method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** Signs a new user in by magic link: their cookie header and user id. */
  signIn(email: string): Promise<{ cookie: string; id: string }>;
  stop(): Promise<void>;
}

export async function startEditorStack(name: string): Promise<EditorStack> {
  const logger = createLogger(`bff-${name}-test`, "silent");
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const [auth, database, media]: [AuthHarness, Awaited<ReturnType<typeof migratedDatabase>>, Awaited<ReturnType<typeof startMediaServer>>] = await Promise.all([
    startAuth(),
    migratedDatabase(),
    startMediaServer(),
  ]);
  const transcription = await startTranscriptionApi(database.db, media.url);
  const bff = await buildBff(
    loadConfig(bffConfigSchema, { WEB_DIST_DIR: "/nonexistent", AUTH_URL: auth.server.url, MEDIA_URL: media.url, TRANSCRIPTION_URL: transcription.server.url, PUBLIC_BASE_URL: origin }),
    logger,
  );
  await bff.listen({ host: "127.0.0.1", port });
  const api: EditorStack["api"] = (cookie, method, url, body, headers = {}) =>
    fetch(`${origin}${url}`, {
      method,
      headers: { origin, ...headers, ...(cookie ? { cookie } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    origin,
    db: database.db,
    api,
    async signIn(email) {
      const cookie = (await signInWithMagicLink(auth, email)).cookieHeader();
      const { id } = (await (await api(cookie, "GET", "/api/v1/me")).json()) as { id: string };
      return { cookie, id };
    },
    async stop() {
      await bff.close();
      await transcription.close();
      await media.close();
      await auth.close();
      await database.close();
    },
  };
}
