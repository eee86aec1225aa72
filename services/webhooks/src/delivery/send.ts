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

/** What is read of a receiver's answer before it is dropped: only its status counts. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One deadline for the whole attempt (connect, send, headers, body, close): whatever the
 * receiver does (answers headers and hangs up, drips a body forever, never answers), the
 * promise settles by timeoutMs and the socket is destroyed. The outcome is decided by the
 * status line; the body is read up to MAX_RESPONSE_BYTES and otherwise dropped.
 */
function send(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { policy: AddressPolicy; timeoutMs: number; resolver?: HostResolver },
): Promise<AttemptOutcome> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    let status: number | undefined;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
      // Nothing more is wanted from this receiver: free the socket whatever state it is in.
      request.destroy();
    };
    const byStatus = (code: number): AttemptOutcome => {
      if (code >= 200 && code < 300) return { ok: true, statusCode: code };
      if (code >= 300 && code < 400) return { ok: false, statusCode: code, error: "Redirects are not followed; register the final URL" };
      return { ok: false, statusCode: code, error: `The endpoint answered HTTP ${code}` };
    };
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "content-length": Buffer.byteLength(body), "user-agent": "Transcribe-Webhooks/1" },
        lookup: guardedLookup(options.policy, options.resolver ?? systemResolver),
        agent: false,
      },
      (response) => {
        status = response.statusCode ?? 0;
        let read = 0;
        response.on("data", (chunk: Buffer) => {
          read += chunk.length;
          // The status is the answer; a body past the cap is not waited for.
          if (read > MAX_RESPONSE_BYTES) finish(byStatus(status!));
        });
        response.on("end", () => finish(byStatus(status!)));
        // Hung up mid-body: the status line was the receiver's answer all the same.
        response.on("error", () => finish(byStatus(status!)));
        response.on("close", () => finish(byStatus(status!)));
      },
    );
    const timer = setTimeout(() => finish(status === undefined ? { ok: false, error: describe(new Error("timeout"), url) } : byStatus(status)), options.timeoutMs);
    request.on("error", (error) => finish(status === undefined ? { ok: false, error: describe(error, url) } : byStatus(status)));
    request.on("close", () => {
      if (status === undefined) finish({ ok: false, error: "The connection closed without an answer" });
    });
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
