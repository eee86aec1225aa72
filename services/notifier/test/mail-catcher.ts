import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { freePort } from "@transcribe/platform/testing";

export interface CaughtMail {
  subject: string;
  text: string;
  html: string;
  to: Array<{ address: string }>;
  from: Array<{ address: string; name: string }>;
  messageId: string;
  headers: Record<string, string>;
}

/** A real SMTP server for tests: maildev in its own process on free ports, read through its JSON API. */
export async function startMailCatcher() {
  const smtpPort = await freePort();
  const webPort = await freePort();
  const bin = createRequire(import.meta.url).resolve("maildev/bin/maildev");
  const child: ChildProcess = spawn(
    process.execPath,
    [bin, "--smtp", String(smtpPort), "--web", String(webPort), "--ip", "127.0.0.1", "--silent"],
    { stdio: "ignore" },
  );
  const webUrl = `http://127.0.0.1:${webPort}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`${webUrl}/email`)).ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error("maildev did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
    webUrl,
    async mails(): Promise<CaughtMail[]> {
      return (await (await fetch(`${webUrl}/email`)).json()) as CaughtMail[];
    },
    /** The caught mails that `match`, once there is one (or after 10 s, none): maildev lists a
     * mail a moment after the SMTP session that delivered it has ended. */
    async matching(match: (mail: CaughtMail) => boolean): Promise<CaughtMail[]> {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = (await this.mails()).filter(match);
        if (found.length > 0 || Date.now() > deadline) return found;
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      });
    },
  };
}
