import { spawn } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";

/**
 * Builds the SPA when web/dist is missing or older than any web source, so `npm start`
 * on a fresh clone serves the app and a second start does not rebuild for nothing.
 */
export async function ensureWebBuilt(repoRoot: string, log: (message: string) => void): Promise<void> {
  const webDir = path.join(repoRoot, "web");
  const builtAt = await mtime(path.join(webDir, "dist", "index.html"));
  const sources = [path.join(webDir, "src"), path.join(webDir, "index.html"), path.join(webDir, "vite.config.ts"), path.join(webDir, "public")];
  let newest = 0;
  for (const source of sources) newest = Math.max(newest, await newestMtime(source));
  if (builtAt !== undefined && builtAt >= newest) return;
  log("building the web app (web/dist)...");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "node_modules", "vite", "bin", "vite.js"), "build"], {
      cwd: webDir,
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`web build failed with code ${code}`))));
  });
}

async function mtime(file: string): Promise<number | undefined> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return undefined;
  }
}

async function newestMtime(entry: string): Promise<number> {
  const own = await mtime(entry);
  if (own === undefined) return 0;
  let newest = own;
  const entries = await readdir(entry, { withFileTypes: true }).catch(() => []);
  for (const child of entries) {
    if (child.name === "routeTree.gen.ts") continue;
    newest = Math.max(newest, await newestMtime(path.join(entry, child.name)));
  }
  return newest;
}
