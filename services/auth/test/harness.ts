import { fromBinary } from "@bufbuild/protobuf";
import {
  createDatabase,
  createLogger,
  type Database,
  loadConfig,
  migrateToLatest,
  outboxMigrations,
  type PlatformEventTables,
  type ServiceServer,
  startServiceServer,
} from "@transcribe/platform";
import { createTestDatabase, freePort } from "@transcribe/platform/testing";
import { SendEmailSchema, SendMagicLinkSchema } from "@transcribe/proto/events/v1/events";
import type { Kysely } from "kysely";
import { z } from "zod";
import { buildAuthService } from "../src/build.js";
import { type AuthConfig, authConfigSchema } from "../src/config.js";
import { migrations } from "../src/db/migrations.js";

export const TEST_SECRET = "test-secret-0123456789-0123456789-0123456789";

export interface Mail {
  type: "SendEmail" | "SendMagicLink";
  to: string;
  subject: string;
  text: string;
  html: string;
  kind: string;
  /** The first link in the mail (the action). */
  url: string;
}

export interface AuthHarness {
  baseUrl: string;
  database: Database<any>;
  server: ServiceServer;
  config: AuthConfig;
  auth: ReturnType<typeof buildAuthService>["auth"];
  /** Every mail command the service wrote to its outbox, oldest first. */
  mails(to?: string): Promise<Mail[]>;
  lastMail(to: string, kind?: string): Promise<Mail>;
  browser(): Browser;
  /** A second auth process on the same database (another replica), closed with the harness. */
  replica(): Promise<{ baseUrl: string; browser(): Browser }>;
  close(): Promise<void>;
}

/**
 * The real auth service (better-auth, our migrations, the outbox mailer, the Connect
 * server) on a fresh PostgreSQL database, listening on a free port that is also its
 * AUTH_BASE_URL, so links in mails point back at it.
 */
export async function startAuth(env: Record<string, string> = {}, options: { port?: number } = {}): Promise<AuthHarness> {
  const testDb = await createTestDatabase("auth");
  const database = createDatabase(testDb.url, { max: 5 });
  await migrateToLatest(database.db, { ...outboxMigrations, ...migrations });
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = loadConfig(authConfigSchema.extend({ NODE_ENV: z.enum(["development", "production", "test"]).default("test") }), {
    AUTH_BASE_URL: baseUrl,
    AUTH_SECRET: TEST_SECRET,
    AUTH_RATE_LIMIT_ENABLED: "false",
    ...env,
  });
  const logger = createLogger("auth-test", process.env.TEST_LOG_LEVEL ?? "silent");
  const serve = async (port: number) => {
    const built = buildAuthService({ config, logger, database });
    const server = await startServiceServer({
      name: "auth",
      host: "127.0.0.1",
      port,
      logger,
      ...(built.parts.routes ? { routes: built.parts.routes } : {}),
      ...(built.parts.configure ? { configure: built.parts.configure } : {}),
    });
    return { auth: built.auth, server };
  };
  const { auth, server } = await serve(port);
  const replicas: ServiceServer[] = [];

  const mails = async (to?: string): Promise<Mail[]> => {
    const rows = await (database.db as Kysely<PlatformEventTables>)
      .selectFrom("platform_outbox")
      .select(["type", "payload"])
      .where("topic", "=", "notifier.mail")
      .orderBy("seq")
      .execute();
    const all = rows.map((row: { type: string; payload: Uint8Array }): Mail => {
      if (row.type === SendMagicLinkSchema.typeName) {
        const m = fromBinary(SendMagicLinkSchema, row.payload);
        return { type: "SendMagicLink", to: m.email, subject: "", text: "", html: "", kind: "magic-link", url: m.magicLinkUrl };
      }
      const m = fromBinary(SendEmailSchema, row.payload);
      const url = /(https?:\/\/\S+)/.exec(m.text)?.[1] ?? "";
      return { type: "SendEmail", to: m.to, subject: m.subject, text: m.text, html: m.html, kind: m.kind, url };
    });
    return to ? all.filter((m) => m.to === to) : all;
  };

  return {
    baseUrl,
    database,
    server,
    config,
    auth,
    mails,
    async lastMail(to, kind) {
      const found = (await mails(to)).filter((m) => !kind || m.kind === kind);
      const last = found.at(-1);
      if (!last) throw new Error(`no ${kind ?? ""} mail to ${to}`);
      return last;
    },
    browser: () => new Browser(baseUrl),
    async replica() {
      const { server: replica } = await serve(await freePort());
      replicas.push(replica);
      const url = replica.url.replace("localhost", "127.0.0.1");
      return { baseUrl: url, browser: () => new Browser(url, baseUrl) };
    },
    async close() {
      for (const replica of replicas) await replica.close();
      await server.close();
      await database.close();
      await testDb.drop();
    },
  };
}

/**
 * A minimal browser: a cookie jar (name → value, honouring Max-Age=0 deletions), the
 * Origin header better-auth's CSRF check wants, redirects not followed (tests look at them).
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  /** @param origin what the page the requests come from is (AUTH_BASE_URL, even when talking to a replica) */
  constructor(
    readonly baseUrl: string,
    readonly origin: string = baseUrl,
  ) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async request(path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { origin: this.origin, ...init.headers };
    if (this.cookies.size > 0) headers.cookie = this.cookieHeader();
    if (init.json !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(new URL(path, this.baseUrl), {
      method: init.method ?? (init.json === undefined ? "GET" : "POST"),
      headers,
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      redirect: "manual",
    });
    this.store(response.headers.getSetCookie());
    const text = await response.text();
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // HTML or empty
    }
    return { status: response.status, headers: response.headers, body, setCookie: response.headers.getSetCookie() };
  }

  post(path: string, json: unknown = {}) {
    return this.request(path, { method: "POST", json });
  }

  get(path: string) {
    return this.request(path);
  }

  store(setCookies: string[]) {
    for (const line of setCookies) {
      const [pair, ...attributes] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** Follows a mailed link (relative or absolute), storing the cookies it sets. */
  async open(url: string) {
    const target = new URL(url, this.baseUrl);
    return this.request(target.pathname + target.search);
  }
}

/** Signs a new user in through the magic link, as a person would; returns the browser holding the session. */
export async function signInWithMagicLink(harness: AuthHarness, email: string, browser = harness.browser()) {
  const sent = await browser.post("/auth/sign-in/magic-link", { email, callbackURL: "/dashboard" });
  if (sent.status !== 200) throw new Error(`magic link request failed: ${sent.status} ${JSON.stringify(sent.body)}`);
  const mail = await harness.lastMail(email, "magic-link");
  const landed = await browser.open(mail.url);
  if (landed.status !== 302) throw new Error(`magic link verify: ${landed.status} ${JSON.stringify(landed.body)}`);
  return browser;
}

/** Signs up with e-mail and password (the session cookie comes with the answer). */
export async function signUpWithPassword(harness: AuthHarness, email: string, password = "correct horse battery", browser = harness.browser()) {
  const response = await browser.post("/auth/sign-up/email", { email, password, name: "Test User" });
  if (response.status !== 200) throw new Error(`sign-up failed: ${response.status} ${JSON.stringify(response.body)}`);
  return browser;
}
