import { readFile, rm, stat } from "node:fs/promises";
import { createReadStream } from "node:fs";
import http from "node:http";
import path from "node:path";
import { getHealth, newStackDataDir, ownStackEnv, startStack, waitFor, type RunningStack } from "../../deploy/embedded/test/stack.js";

/*
 * The whole product as `npm start` runs it (the embedded launcher: PostgreSQL, every
 * service as its own process, the mail catcher), on ports and a data directory of its
 * own, and a client of its public API signed in by magic link, as a person would be.
 */

export interface Product {
  stack: RunningStack;
  baseUrl: string;
  mailUrl: string;
  dataDir: string;
  pgPort: number;
  /** Seconds from spawning the launcher to GET /api/v1/health answering 200. */
  healthySeconds: number;
  /** The launcher's variables (ports, data directory). */
  env: Record<string, string>;
  stop(options?: { keepData?: boolean }): Promise<void>;
}

export interface ProductOptions {
  /** Extra variables for the launcher and, through it, every service. */
  env?: Record<string, string>;
  /** Reuse this data directory (a warm start) instead of a new one. */
  dataDir?: string;
  healthTimeoutMs?: number;
}

/** Variables every benchmark stack gets: quiet logs, and no free-trial limit in the way of repeated runs. */
const BENCH_ENV = { LOG_LEVEL: "warn", LOG_FORMAT: "json", SKIP_WEB_BUILD: "true", FREE_TRIAL_MINUTES: "1000000" };

/** A new data directory under .data/ (where `npm start` keeps its own). */
export const newDataDir = () => newStackDataDir("bench-");

/** The launcher's variables for a stack of the benchmark's own: free ports, the given data directory. */
export async function launcherEnv(dataDir: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return { ...BENCH_ENV, ...(await ownStackEnv(dataDir)), ...extra };
}

export async function startProduct(options: ProductOptions = {}): Promise<Product> {
  const dataDir = options.dataDir ?? (await newDataDir());
  const env = await launcherEnv(dataDir, options.env);
  const started = performance.now();
  const stack = startStack(env);
  const exited = new Promise<never>((_, reject) =>
    stack.child.once("exit", (code) => reject(new Error(`the launcher exited with ${code}:\n${stack.output().slice(-3000)}`))),
  );
  exited.catch(() => {});
  try {
    await Promise.race([
      exited,
      waitFor(() => getHealth(stack.baseUrl), (h) => h?.status === 200, options.healthTimeoutMs ?? 180_000, "health 200"),
    ]);
  } catch (error) {
    await stack.interrupt();
    throw new Error(`${(error as Error).message}\n--- launcher output ---\n${stack.output().slice(-3000)}`);
  }
  const healthySeconds = (performance.now() - started) / 1000;
  return {
    stack,
    baseUrl: stack.baseUrl,
    mailUrl: `http://127.0.0.1:${env.MAILDEV_WEB_PORT}`,
    dataDir,
    pgPort: Number(env.EMBEDDED_PG_PORT),
    healthySeconds,
    env,
    async stop({ keepData = false } = {}) {
      const code = await stack.interrupt();
      if (code !== 0) console.error(`the launcher stopped with code ${code}`);
      if (!keepData) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Links in mails and signed URLs name the public origin (http://localhost:<port>); requests go to the address we know. */
function onOrigin(url: string, baseUrl: string): string {
  const target = new URL(url);
  const base = new URL(baseUrl);
  target.protocol = base.protocol;
  target.host = base.host;
  return target.toString();
}

export interface ApiClient {
  baseUrl: string;
  cookie: string;
  userId: string;
  get<T>(pathname: string): Promise<T>;
  post<T>(pathname: string, body: unknown): Promise<T>;
  /** POST /upload, then PUT of the bytes; resolves with the file id once the PUT is answered. */
  upload(file: string, contentType: string, durationSeconds: number): Promise<string>;
}

/** Signs a new user in by magic link (POST, mail catcher, verify link) and returns a client with its session. */
export async function signIn(product: Product, email = `bench-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`): Promise<ApiClient> {
  const { baseUrl, mailUrl } = product;
  const sent = await fetch(`${baseUrl}/auth/sign-in/magic-link`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: baseUrl },
    body: JSON.stringify({ email, callbackURL: "/dashboard" }),
  });
  if (sent.status !== 200) throw new Error(`magic link: ${sent.status} ${await sent.text()}`);
  const link = await waitFor(
    async () => {
      const list = (await fetch(`${mailUrl}/email`).then((r) => r.json()).catch(() => [])) as Array<{ to?: Array<{ address: string }>; text?: string }>;
      const mail = list.find((m) => (m.to ?? []).some((t) => t.address === email));
      return /(https?:\/\/\S+\/auth\/magic-link\/verify\?\S+)/.exec(mail?.text ?? "")?.[1];
    },
    (found) => found !== undefined,
    30_000,
    `the sign-in mail to ${email}`,
  );
  const landed = await fetch(onOrigin(link!, baseUrl), { redirect: "manual" });
  const cookie = landed.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!.trim())
    .filter((pair) => !pair.endsWith("="))
    .join("; ");
  if (!cookie.includes("session_token")) throw new Error(`no session cookie after the magic link (${landed.status})`);

  const request = async <T>(method: string, pathname: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${baseUrl}${pathname}`, {
      method,
      headers: { cookie, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const me = await request<{ id: string }>("GET", "/api/v1/me");
  return {
    baseUrl,
    cookie,
    userId: me.id,
    get: (pathname) => request("GET", pathname),
    post: (pathname, body) => request("POST", pathname, body),
    async upload(file, contentType, durationSeconds) {
      const size = (await stat(file)).size;
      const created = await request<{ upload_url: string; file_id: string }>("POST", "/api/v1/upload", {
        file_name: path.basename(file),
        file_size: size,
        content_type: contentType,
        duration: durationSeconds,
      });
      const status = await putFile(onOrigin(created.upload_url, baseUrl), file, size, contentType);
      if (status !== 200) throw new Error(`PUT of ${file} answered ${status}`);
      return created.file_id;
    },
  };
}

/** Streams a file with its Content-Length, as a browser's PUT of a File does. */
export function putFile(url: string, file: string, size: number, contentType: string): Promise<number> {
  return new Promise((resolve, reject) => {
    // No keep-alive: an idle pooled connection would hold the server's shutdown up.
    const request = http.request(url, { method: "PUT", agent: false, headers: { "content-type": contentType, "content-length": size } }, (response) => {
      response.resume();
      response.once("end", () => resolve(response.statusCode ?? 0));
    });
    request.once("error", reject);
    createReadStream(file).pipe(request);
  });
}

/** The pid the launcher recorded for one of its services. */
export async function pidOf(product: Product, name: string): Promise<number> {
  return Number((await readFile(path.join(product.dataDir, "run", `${name}.pid`), "utf8")).trim());
}
