import { type LiveClient, LiveSession, type LiveSessionOptions, type LiveSettings } from "./session.js";

/**
 * The live sessions of this BFF process, by id (decision 0037). A session another process
 * left in the spool directory (this BFF restarted, or crashed) is taken up when its client
 * resumes it, or at start-up, where it waits for its client like any dropped session and
 * is saved if nobody comes back.
 */
export class LiveSessions {
  private readonly sessions = new Map<string, LiveSession>();

  constructor(private readonly options: LiveSessionOptions) {}

  open(settings: LiveSettings, client: LiveClient, overrides: Partial<Pick<LiveSessionOptions, "resumeMs">> = {}): LiveSession {
    const session = LiveSession.open({ ...this.options, ...overrides }, settings, client, (s) => this.forget(s));
    this.sessions.set(session.id, session);
    return session;
  }

  /** Undefined when there is no open session of that user by that id (ended, saved, or never theirs). */
  async resume(id: string, userId: string, client: LiveClient): Promise<LiveSession | undefined> {
    const session = this.sessions.get(id) ?? (await this.adopt(id));
    if (!session || session.userId !== userId || !session.open) return undefined;
    session.resume(client);
    return session;
  }

  /** Takes up every session left on disk by an earlier process. */
  async adoptLeftovers(): Promise<number> {
    let adopted = 0;
    for (const id of this.options.records.list()) if (!this.sessions.has(id) && (await this.adopt(id))) adopted++;
    return adopted;
  }

  /** This process is stopping: every session stays on disk, and its client is told to reconnect. */
  suspendAll(): void {
    for (const session of [...this.sessions.values()]) session.suspend();
  }

  get size(): number {
    return this.sessions.size;
  }

  private async adopt(id: string): Promise<LiveSession | undefined> {
    const left = await this.options.records.load(id);
    if (!left) return undefined;
    // Loading awaits: another call may have taken it up meanwhile.
    const existing = this.sessions.get(id);
    if (existing) {
      left.spool.release();
      return existing;
    }
    const session = LiveSession.adopt(this.options, left.record, left.spool, (s) => this.forget(s));
    this.sessions.set(id, session);
    this.options.logger.info({ sessionId: id, audioSeconds: left.spool.seconds }, "live session taken up from the spool directory");
    return session;
  }

  private forget(session: LiveSession): void {
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
  }
}
