/**
 * The local mail catcher (maildev) read for many people at once: one poller lists the
 * inbox, hands each sign-in link to whoever waits for that address, and deletes the mail
 * so the inbox (and the catcher's memory, which the soak measures) stays small.
 */
export class Mailbox {
  readonly #waiters = new Map<string, Array<(link: string) => void>>();
  #timer: NodeJS.Timeout | undefined;
  #polling = false;

  constructor(private readonly mailUrl: string) {}

  start(): void {
    this.#timer = setInterval(() => void this.#poll(), 300);
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  /** The next magic link mailed to `email`; ask before the mail is sent. */
  linkFor(email: string, timeoutMs = 60_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no sign-in mail for ${email} within ${timeoutMs} ms`)), timeoutMs);
      const list = this.#waiters.get(email) ?? [];
      list.push((link) => {
        clearTimeout(timer);
        resolve(link);
      });
      this.#waiters.set(email, list);
    });
  }

  async #poll(): Promise<void> {
    if (this.#polling || this.#waiters.size === 0) return;
    this.#polling = true;
    try {
      const mails = (await fetch(`${this.mailUrl}/email`).then((r) => r.json())) as Array<{ id: string; to?: Array<{ address: string }>; text?: string }>;
      for (const mail of mails) {
        const address = mail.to?.[0]?.address ?? "";
        const link = /(https?:\/\/\S+\/auth\/magic-link\/verify\?\S+)/.exec(mail.text ?? "")?.[1];
        const waiting = this.#waiters.get(address);
        if (!link || !waiting || waiting.length === 0) continue;
        waiting.shift()!(link);
        if (waiting.length === 0) this.#waiters.delete(address);
        await fetch(`${this.mailUrl}/email/${mail.id}`, { method: "DELETE" }).catch(() => {});
      }
    } catch {
      // the catcher restarting or busy: the next poll tries again
    } finally {
      this.#polling = false;
    }
  }
}
