import { closeSync, existsSync, openSync, readdirSync, statSync, unlinkSync, utimesSync } from "node:fs";
import path from "node:path";

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/** Runs a file operation whose file may already be gone (taken over, cleaned up); any other failure is thrown. */
function unlessGone<T>(operation: () => T, whenGone: T): T {
  try {
    return operation();
  } catch (error) {
    if (code(error) === "ENOENT") return whenGone;
    throw error;
  }
}

/**
 * Which BFF process holds a live session, among the replicas that share a spool directory
 * (decision 0040). Holding epoch n is the file `live-<id>.lease-<n>`; taking the session
 * over is creating `lease-<n+1>` exclusively (O_EXCL: of two replicas taking the same
 * session, one wins), after which the holder of n has lost it: it checks before it writes
 * audio or settled words, and every heartbeat. The holder touches its file every
 * heartbeat; a lease nobody touched for a while belongs to a process that died, and any
 * replica may take the session up.
 */
export class SessionLease {
  private constructor(
    private readonly dir: string,
    private readonly id: string,
    readonly epoch: number,
  ) {}

  private static file(dir: string, id: string, epoch: number): string {
    return path.join(dir, `live-${id}.lease-${epoch}`);
  }

  /** The lease files of a session, by epoch, newest last. */
  private static epochs(dir: string, id: string): number[] {
    const prefix = `live-${id}.lease-`;
    return unlessGone(() => readdirSync(dir), [] as string[])
      .filter((n) => n.startsWith(prefix))
      .map((n) => Number(n.slice(prefix.length)))
      .filter((n) => Number.isSafeInteger(n) && n > 0)
      .sort((a, b) => a - b);
  }

  /** Takes the session (from whoever holds it); undefined when another process took it at the same moment. */
  static take(dir: string, id: string): SessionLease | undefined {
    const epoch = (SessionLease.epochs(dir, id).at(-1) ?? 0) + 1;
    try {
      closeSync(openSync(SessionLease.file(dir, id, epoch), "wx", 0o600));
    } catch (error) {
      // Another replica created this epoch first: it holds the session now.
      if (code(error) === "EEXIST") return undefined;
      throw error;
    }
    const lease = new SessionLease(dir, id, epoch);
    // Leases before the one just taken over are history (its holder sees this one and lets go).
    for (const older of SessionLease.epochs(dir, id)) if (older < epoch - 1) lease.unlink(older);
    return lease;
  }

  /**
   * How long ago the session's holder last showed it is alive (ms); undefined when the
   * session has no lease (left by a BFF that had none).
   */
  static idleMs(dir: string, id: string, now = Date.now()): number | undefined {
    const newest = SessionLease.epochs(dir, id).at(-1);
    if (newest === undefined) return undefined;
    return unlessGone(() => now - statSync(SessionLease.file(dir, id, newest)).mtimeMs, undefined);
  }

  /** This process still holds the session: nobody took it over. */
  held(): boolean {
    // Its own file too: leases two epochs back are removed, and a holder that slept through two takeovers must not see a gap.
    return !existsSync(SessionLease.file(this.dir, this.id, this.epoch + 1)) && existsSync(SessionLease.file(this.dir, this.id, this.epoch));
  }

  /** Shows the other replicas that the holder is alive. */
  renew(): void {
    const now = new Date();
    // Gone: taken over and cleaned up; held() says so.
    unlessGone(() => utimesSync(SessionLease.file(this.dir, this.id, this.epoch), now, now), undefined);
  }

  /**
   * Lets go of a session left on disk for whoever comes next (this process is stopping):
   * the file stays, so epochs never repeat, but dated long ago, so any replica takes it up.
   */
  release(): void {
    unlessGone(() => utimesSync(SessionLease.file(this.dir, this.id, this.epoch), 0, 0), undefined);
  }

  /** Removes every lease of a session that is over. */
  static removeAll(dir: string, id: string): void {
    for (const epoch of SessionLease.epochs(dir, id)) unlessGone(() => unlinkSync(SessionLease.file(dir, id, epoch)), undefined);
  }

  private unlink(epoch: number): void {
    unlessGone(() => unlinkSync(SessionLease.file(this.dir, this.id, epoch)), undefined);
  }
}
