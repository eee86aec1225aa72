import { createHash } from "node:crypto";
import { expect } from "vitest";
import type { Browser } from "../../../auth/test/harness.js";
import type { Product, User } from "./product.js";

/** One answer, read once: status, parsed JSON (or the text), headers. */
export interface Answer {
  status: number;
  body: any;
  text: string;
  headers: Headers;
}

/** Everything the matrix's cases need: the product, the three users and user B's ids. */
export interface MatrixContext {
  product: Product;
  /** The attacker: signed in by magic link, so without account rows of their own. */
  a: User;
  /** The victim, who owns everything below. */
  b: User;
  /** A throwaway user for endpoints that act on the caller (sign-out, delete-user, revoke-sessions). */
  c: User;
  /** B's second browser; its session token is the one A tries to revoke. */
  bSecond: Browser;
  ids: {
    bFile: string;
    bTranscription: string;
    /** B's transcription completed (the real engine ran), so B can export it. */
    bCompleted: boolean;
    bExportUrl: string | undefined;
    bAudioUrl: string;
    bAccountId: string;
    bSessionToken: string;
    aFile: string;
    aAudioUrl: string;
    /** B's API key (id) and webhook endpoint (id). */
    bApiKey: string;
    bWebhook: string;
  };
  call(user: User | undefined, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** A request from one browser, keeping the cookies it is answered with. */
  send(browser: Browser, request: { method: string; path: string; body?: unknown }): Promise<Answer>;
  /** A new session of an existing user (password sign-in). */
  signInAgain(user: User): Promise<Browser>;
}

export async function read(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body, text, headers: response.headers };
}

/** A request as the web app sends it from the product's own page (Origin: the product). */
export function caller(product: Product) {
  return async (user: User | undefined, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(new URL(path, product.baseUrl), {
      method,
      redirect: "manual",
      headers: {
        origin: product.baseUrl,
        ...(user ? { cookie: user.browser.cookieHeader() } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return read(response);
  };
}

/** Sends from `browser` with its cookies and the product's Origin, storing the cookies the answer sets. */
export function sender(product: Product) {
  return async (browser: Browser, request: { method: string; path: string; body?: unknown }) => {
    const response = await fetch(new URL(request.path, product.baseUrl), {
      method: request.method,
      redirect: "manual",
      headers: {
        origin: product.baseUrl,
        ...(browser.cookies.size > 0 ? { cookie: browser.cookieHeader() } : {}),
        ...(request.body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
    browser.store(response.headers.getSetCookie());
    return read(response);
  };
}

/** The refusal is `status` with the API's JSON error body. */
export function expectApiError(answer: Answer, status: number, what: string): void {
  expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).toBe(status);
  expect(answer.body?.error?.code, `${what}: JSON error body`).toEqual(expect.any(String));
  expect(answer.body?.error?.message, `${what}: JSON error body`).toEqual(expect.any(String));
}

/** better-auth's refusal: `status` with its {message, code} body. */
export function expectAuthError(answer: Answer, status: number, what: string, message?: string): void {
  expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).toBe(status);
  if (message) expect(answer.body?.message, what).toBe(message);
}

export const sha256 = (bytes: ArrayBuffer | Buffer) => createHash("sha256").update(Buffer.from(bytes as ArrayBuffer)).digest("hex");

/** A signed storage URL with its signature spoiled. */
export function spoilSignature(url: string): string {
  const parsed = new URL(url);
  const sig = parsed.searchParams.get("sig") ?? "";
  parsed.searchParams.set("sig", `${sig.slice(0, -1)}${sig.endsWith("A") ? "B" : "A"}`);
  return parsed.toString();
}

/**
 * Everything of user B that the product shows B, read as B. Compared before and after
 * the attacks: any change means an attack got through.
 */
export async function viewOf(ctx: MatrixContext, user: User) {
  const get = async (path: string) => {
    const answer = await ctx.call(user, "GET", path);
    return { status: answer.status, body: answer.body };
  };
  const sessions = await get("/auth/list-sessions");
  return {
    me: await get("/api/v1/me"),
    files: await get("/api/v1/files?limit=100"),
    file: await get(`/api/v1/files/${ctx.ids.bFile}`),
    transcriptions: await get("/api/v1/transcriptions?limit=100"),
    transcription: await get(`/api/v1/transcriptions/${ctx.ids.bTranscription}`),
    trialLimits: await get("/api/v1/trial-limits"),
    usage: await get("/api/v1/usage-stats"),
    subscription: await get("/api/v1/billing/subscription"),
    voiceSettings: await get("/api/v1/voices/settings"),
    voices: await get("/api/v1/voices"),
    sessions: { status: sessions.status, tokens: (sessions.body as Array<{ token: string }>).map((s) => s.token).sort() },
    accounts: await get("/auth/list-accounts"),
    audio: sha256(await (await fetch(ctx.ids.bAudioUrl)).arrayBuffer()),
  };
}
