import http from "node:http";
import https from "node:https";
import { type AddressPolicy, bareHost, ForbiddenAddressError, guardedLookup, type HostResolver, resolveAllowed, systemResolver, UnresolvableHostError } from "@transcribe/platform";
import { messages } from "../domain/rules.js";

export interface AttemptOutcome {
  ok: boolean;
  statusCode?: number;
  error?: string;
}

/**
 * One POST to a webhook target. The connection may only go to an address the policy
 * allows: the DNS answer is checked at connect time (guardedLookup), so a name that
 * resolved to a public address at registration and to 127.0.0.1 now is refused. Redirects
 * are never followed (a 3xx is a failed attempt): a redirect cannot lead a delivery
 * anywhere the URL itself could not go.
 */
export async function postWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: { policy: AddressPolicy; timeoutMs: number; resolver?: HostResolver },
): Promise<AttemptOutcome> {
  const url = new URL(target);
  // Node connects to an IP literal without any lookup, so the guard below would not see it.
  try {
    await resolveAllowed(bareHost(url), options.policy, options.resolver ?? systemResolver);
  } catch (error) {
    return { ok: false, error: describe(error as Error, url) };
  }
  return send(url, body, headers, options);
}

function send(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { policy: AddressPolicy; timeoutMs: number; resolver?: HostResolver },
): Promise<AttemptOutcome> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body), "user-agent": "Transcribe-Webhooks/1" },
        lookup: guardedLookup(options.policy, options.resolver ?? systemResolver),
        timeout: options.timeoutMs,
      },
      (response) => {
        // The receiver's body is not kept; read and drop at most what it sends.
        response.resume();
        const status = response.statusCode ?? 0;
        response.on("end", () => {
          if (status >= 200 && status < 300) return resolve({ ok: true, statusCode: status });
          if (status >= 300 && status < 400) return resolve({ ok: false, statusCode: status, error: "Redirects are not followed; register the final URL" });
          resolve({ ok: false, statusCode: status, error: `The endpoint answered HTTP ${status}` });
        });
      },
    );
    const timer = setTimeout(() => request.destroy(new Error("timeout")), options.timeoutMs);
    request.on("timeout", () => request.destroy(new Error("timeout")));
    request.on("error", (error) => {
      clearTimeout(timer);
      resolve({ ok: false, error: describe(error, url) });
    });
    request.on("close", () => clearTimeout(timer));
    request.end(body);
  });
}

function describe(error: Error, url: URL): string {
  if (error instanceof ForbiddenAddressError) return messages.forbidden;
  if (error instanceof UnresolvableHostError) return messages.unresolvable(url.hostname);
  if (error.message === "timeout") return "The endpoint did not answer in time";
  const code = (error as { code?: string }).code;
  return code ? `The connection failed (${code})` : "The connection failed";
}
