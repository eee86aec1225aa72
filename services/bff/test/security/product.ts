import { rm } from "node:fs/promises";
import { processes } from "@transcribe/embedded/services";
import { pcmWav } from "@transcribe/media/testing/voices";
import { getHealth, newStackDataDir, ownStackEnv, type RunningStack, startStack, waitFor } from "../../../../deploy/embedded/test/stack.js";
import { Browser } from "../../../auth/test/harness.js";

/**
 * The whole product as `npm start` runs it (the launcher: embedded PostgreSQL, every
 * service as its own process, the BFF in front), on ports and a data directory of the
 * test's own. The security tests attack it over HTTP the way a browser or a script would.
 */
export interface Product {
  baseUrl: string;
  /** The local mail catcher's web API (maildev: GET /email). */
  mailUrl: string;
  stack: RunningStack;
  /** Pids of every service process, by name (a crash makes the supervisor start a new one). */
  pids(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

export async function startProduct(env: Record<string, string> = {}): Promise<Product> {
  const dataDir = await newStackDataDir("security-test-");
  const launcherEnv = {
    ...(await ownStackEnv(dataDir)),
    RESTART_DELAY_MS: "1000",
    // The API is what is attacked here; the SPA is built and checked by web-security.test.ts.
    SKIP_WEB_BUILD: "true",
    LOG_LEVEL: "warn",
    ...env,
  };
  const stack = startStack(launcherEnv);
  try {
    await waitFor(() => getHealth(stack.baseUrl), (h) => h?.status === 200, 150_000, "the product's health to be 200");
  } catch (error) {
    await stack.interrupt();
    await rm(dataDir, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n--- launcher output ---\n${stack.output().slice(-6000)}`);
  }
  return {
    baseUrl: stack.baseUrl,
    mailUrl: `http://127.0.0.1:${launcherEnv.MAILDEV_WEB_PORT}`,
    stack,
    async pids() {
      const entries = await Promise.all(processes.map(async (p) => [p.name, await stack.pidOf(p.name)] as const));
      return Object.fromEntries(entries);
    },
    async stop() {
      await stack.interrupt();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Whether a process with this pid is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface User {
  email: string;
  id: string;
  browser: Browser;
  /** The Cookie header of the user's session. */
  cookie: string;
}

/** Signs a new user up with e-mail and password through the BFF's /auth, as the web app does. */
export async function signUp(product: Pick<Product, "baseUrl">, label: string, browser = new Browser(product.baseUrl)): Promise<User> {
  const email = `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const response = await browser.post("/auth/sign-up/email", { email, password: "correct horse battery staple", name: `User ${label}` });
  if (response.status !== 200) throw new Error(`sign-up of ${email} failed: ${response.status} ${JSON.stringify(response.body)}`);
  const me = await browser.get("/api/v1/me");
  if (me.status !== 200) throw new Error(`/api/v1/me after sign-up: ${me.status} ${JSON.stringify(me.body)}`);
  return { email, id: me.body.id, browser, cookie: browser.cookieHeader() };
}

/** Signs a new user in by magic link (the product's own sign-in), reading the link from the mail catcher. */
export async function signInByMagicLink(product: Pick<Product, "baseUrl" | "mailUrl">, label: string): Promise<User> {
  const email = `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const browser = new Browser(product.baseUrl);
  const sent = await browser.post("/auth/sign-in/magic-link", { email, callbackURL: "/dashboard" });
  if (sent.status !== 200) throw new Error(`magic link for ${email}: ${sent.status} ${JSON.stringify(sent.body)}`);
  const deadline = Date.now() + 60_000;
  let link: string | undefined;
  while (!link && Date.now() < deadline) {
    const mails = (await fetch(`${product.mailUrl}/email`).then((r) => r.json()).catch(() => [])) as Array<{ to?: Array<{ address?: string }>; text?: string; html?: string }>;
    const mail = mails.filter((m) => m.to?.some((t) => t.address?.toLowerCase() === email)).at(-1);
    link = /(https?:\/\/\S+\/auth\/magic-link\/verify\?[^\s"'<>]+)/.exec(mail?.text ?? "")?.[1] ??
      /href="([^"]*\/auth\/magic-link\/verify\?[^"]+)"/.exec(mail?.html ?? "")?.[1]?.replaceAll("&amp;", "&");
    if (!link) await new Promise((r) => setTimeout(r, 250));
  }
  if (!link) throw new Error(`no magic link mail to ${email}`);
  const landed = await browser.open(link);
  if (landed.status !== 302) throw new Error(`magic link verify: ${landed.status} ${JSON.stringify(landed.body)}`);
  const me = await browser.get("/api/v1/me");
  if (me.status !== 200) throw new Error(`/api/v1/me after the magic link: ${me.status}`);
  return { email, id: me.body.id, browser, cookie: browser.cookieHeader() };
}

/** Signs an existing user in once more from another browser (a second session). */
export async function signInAgain(product: Pick<Product, "baseUrl">, user: User): Promise<Browser> {
  const browser = new Browser(product.baseUrl);
  const response = await browser.post("/auth/sign-in/email", { email: user.email, password: "correct horse battery staple" });
  if (response.status !== 200) throw new Error(`sign-in of ${user.email} failed: ${response.status} ${JSON.stringify(response.body)}`);
  return browser;
}

/** A tiny WAV (16 kHz mono PCM) of a tone, for uploads whose content does not matter. */
export function toneWav(seconds = 1): Buffer {
  const rate = 16_000;
  const samples = Math.round(rate * seconds);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
  return pcmWav(data);
}

/** Uploads audio as the web app does (declare, PUT to the signed URL); returns the file id. */
export async function upload(user: User, bytes: Buffer, duration: number, fileName = "speech.wav"): Promise<string> {
  const started = await user.browser.post("/api/v1/upload", { file_name: fileName, file_size: bytes.length, content_type: "audio/wav", duration });
  if (started.status !== 200) throw new Error(`upload declaration: ${started.status} ${JSON.stringify(started.body)}`);
  const put = await fetch(started.body.upload_url, { method: "PUT", body: bytes, headers: { "content-type": "audio/wav" } });
  if (put.status !== 200) throw new Error(`upload PUT: ${put.status} ${await put.text()}`);
  return started.body.file_id as string;
}
