import http from "node:http";

export interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  json<T = unknown>(): T;
}

/** Every request of the run by route and status: what the soak is judged by. */
export class RequestLog {
  readonly counts = new Map<string, number>();
  /** Network errors and timeouts: no status at all. */
  readonly failures = new Map<string, number>();
  readonly latencies: number[] = [];

  record(route: string, status: number, ms: number): void {
    const key = `${route} ${status}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.latencies.push(ms);
  }

  fail(route: string, error: Error): void {
    const key = `${route} ${error.message.slice(0, 80)}`;
    this.failures.set(key, (this.failures.get(key) ?? 0) + 1);
  }

  total(): number {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }

  withStatus(test: (status: number) => boolean): number {
    let n = 0;
    for (const [key, count] of this.counts) if (test(Number(key.slice(key.lastIndexOf(" ") + 1)))) n += count;
    return n;
  }
}

/**
 * One simulated person: their own keep-alive connections from their own loopback
 * address (127.0.0.x), so per-address limits (the auth service's sign-in rate limits)
 * see 50 people rather than one, and their own cookie jar.
 */
export class UserAgent {
  readonly #agent: http.Agent;
  readonly #cookies = new Map<string, string>();

  constructor(
    readonly base: string,
    readonly localAddress: string,
    private readonly log: RequestLog,
  ) {
    this.#agent = new http.Agent({ keepAlive: true, maxSockets: 4, localAddress });
  }

  get signedIn(): boolean {
    return [...this.#cookies.keys()].some((name) => name.endsWith("session_token"));
  }

  forgetCookies(): void {
    this.#cookies.clear();
  }

  /**
   * One request; `route` names it in the counts. URLs the product hands out (upload and
   * download links) name its public origin; they are sent to `base` with the same path.
   */
  async request(
    route: string,
    method: string,
    target: string,
    options: { json?: unknown; body?: Uint8Array; headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<Response> {
    const url = new URL(target, this.base);
    const headers: Record<string, string> = { ...options.headers };
    if (this.#cookies.size > 0) headers.cookie = [...this.#cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    // What a browser sends with every unsafe request from the product's own pages.
    if (method !== "GET" && method !== "HEAD") headers.origin = this.base;
    let payload: Buffer | Uint8Array | undefined;
    if (options.json !== undefined) {
      payload = Buffer.from(JSON.stringify(options.json));
      headers["content-type"] = "application/json";
    } else if (options.body) {
      payload = options.body;
    }
    if (payload) headers["content-length"] = String(payload.length);
    const started = performance.now();
    try {
      const response = await new Promise<Response>((resolve, reject) => {
        const req = http.request(
          { agent: this.#agent, host: new URL(this.base).hostname, port: new URL(this.base).port, method, path: url.pathname + url.search, headers, timeout: options.timeoutMs ?? 60_000 },
          (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () => {
              const body = Buffer.concat(chunks);
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body.toString("utf8")) });
            });
            res.on("error", reject);
          },
        );
        req.on("timeout", () => req.destroy(new Error("timed out")));
        req.on("error", reject);
        req.end(payload);
      });
      this.#remember(response.headers["set-cookie"]);
      this.log.record(route, response.status, performance.now() - started);
      return response;
    } catch (error) {
      this.log.fail(route, error as Error);
      throw error;
    }
  }

  #remember(setCookie: string[] | undefined): void {
    for (const line of setCookie ?? []) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === "" || /max-age=0/i.test(line)) this.#cookies.delete(name);
      else this.#cookies.set(name, value);
    }
  }

  close(): void {
    this.#agent.destroy();
  }
}
