import { SessionLease } from "./lease.js";
import type { LiveRecord } from "./records.js";
import { type LiveClient, LiveSession, type LiveSessionOptions, type LiveSettings } from "./session.js";

/** How often this process shows the other replicas it holds its sessions, and looks for sessions nobody holds. */
export const LEASE_HEARTBEAT_MS = 2_000;
/** A lease not renewed for this long belongs to a process that died: any replica takes its session up. */
export const LEASE_STALE_MS = 10_000;

/**
 * The live sessions of this BFF process, by id (decisions 0037, 0040). Several BFF
 * replicas share one spool directory: a session is held by one process at a time (its
 * lease), and a client resuming on another replica takes it over there; the process that
 * held it lets it go at its next write or heartbeat. A session nobody holds (its process
 * stopped, or died and its lease went stale) is taken up by the first replica to see it,
 * where it waits for its client like any dropped session and is saved if nobody comes back.
 */
export class LiveSessions {
  private readonly sessions = new Map<string, LiveSession>();
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly options: LiveSessionOptions) {}

  open(settings: LiveSettings, client: LiveClient, overrides: Partial<Pick<LiveSessionOptions, "resumeMs">> = {}): LiveSession {
    const session = LiveSession.open({ ...this.options, ...overrides }, settings, client, (s) => this.forget(s));
    this.sessions.set(session.id, session);
    return session;
  }

  /**
   * Undefined when there is no open session of that user by that id (ended, saved, or never
   * theirs). A session held by another replica, or by this one but taken over since, is
   * taken over here: the client is the one who knows where it is now.
   */
  async resume(id: string, userId: string, client: LiveClient): Promise<LiveSession | undefined> {
    let session = this.sessions.get(id);
    if (session && !session.open) return undefined; // stopping, or being saved
    if (session && !session.heartbeat()) session = undefined;
    session ??= await this.adopt(id, (record) => record.userId === userId && !record.saving);
    if (!session || session.userId !== userId || !session.open) return undefined;
    session.resume(client);
    return session;
  }

  /** Takes up every session on disk that nobody holds (left by a process that stopped or died). */
  async adoptLeftovers(): Promise<number> {
    let adopted = 0;
    for (const id of this.options.records.list()) {
      if (this.sessions.has(id)) continue;
      const idle = SessionLease.idleMs(this.options.records.dir, id);
      if (idle !== undefined && idle < LEASE_STALE_MS) continue;
      if (await this.adopt(id)) adopted++;
    }
    return adopted;
  }

  /**
   * Renews this process's leases (letting go of sessions taken over elsewhere) and, with
   * `sweep`, takes up sessions nobody holds, every heartbeat until `suspendAll`.
   */
  startHeartbeat(sweep: boolean): void {
    if (this.heartbeat) return;
    let sweeping = false;
    this.heartbeat = setInterval(() => {
      for (const session of [...this.sessions.values()]) session.heartbeat();
      if (!sweep || sweeping) return;
      sweeping = true;
      void this.adoptLeftovers()
        .catch((error: unknown) => this.options.logger.warn({ err: error }, "live spool sweep failed"))
        .finally(() => (sweeping = false));
    }, LEASE_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** This process is stopping: every session stays on disk, and its client is told to reconnect. */
  suspendAll(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    for (const session of [...this.sessions.values()]) session.suspend();
  }

  get size(): number {
    return this.sessions.size;
  }

  private async adopt(id: string, mayTake: (record: LiveRecord) => boolean = () => true): Promise<LiveSession | undefined> {
    const left = await this.options.records.load(id);
    if (!left) return undefined;
    // Loading awaits: another call may have taken it up meanwhile.
    const existing = this.sessions.get(id);
    const idle = SessionLease.idleMs(this.options.records.dir, id);
    // One being saved by a live holder stays that holder's.
    const savingElsewhere = left.record.saving === true && idle !== undefined && idle < LEASE_STALE_MS;
    if (existing || savingElsewhere || !mayTake(left.record)) {
      left.spool.release();
      return existing;
    }
    const lease = SessionLease.take(this.options.records.dir, id);
    if (!lease) {
      // Another replica took it at this very moment.
      left.spool.release();
      return undefined;
    }
    // The audio as it is now that this process holds it (the previous holder writes no more).
    left.spool.release();
    const now = await this.options.records.load(id);
    if (!now) {
      // Saved by its holder meanwhile: nothing to take up.
      SessionLease.removeAll(this.options.records.dir, id);
      return undefined;
    }
    const session = LiveSession.adopt(this.options, now.record, now.spool, lease, (s) => this.forget(s));
    this.sessions.set(id, session);
    this.options.logger.info({ sessionId: id, audioSeconds: now.spool.seconds, epoch: lease.epoch }, "live session taken up from the spool directory");
    return session;
  }

  private forget(session: LiveSession): void {
    if (this.sessions.get(session.id) === session) this.sessions.delete(session.id);
  }
}
