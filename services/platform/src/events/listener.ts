import type pg from "pg";
import type { Logger } from "../logger.js";
import { backoffMs } from "./wakeup.js";

export interface ListenConnection {
  client: pg.ClientBase;
  /** Gives the connection up; it must not be reused, as it still LISTENs. */
  close(): Promise<void> | void;
}

export interface ListenOptions {
  channel: string;
  connect(): Promise<ListenConnection>;
  onNotification(payload: string | undefined): void;
  /** Called after every (re)connection: notifications sent while disconnected are lost. */
  onConnect?(): void;
  logger?: Logger;
}

export interface NotificationListener {
  stop(): Promise<void>;
}

/**
 * Keeps one connection LISTENing on a channel and reconnects with backoff when it drops.
 * Notifications only shorten latency; callers keep polling, so a lost one delays work
 * by at most a poll interval and loses nothing.
 */
export function listenForNotifications(options: ListenOptions): NotificationListener {
  if (!/^[a-z_][a-z0-9_]*$/.test(options.channel)) throw new Error(`Invalid channel name: ${options.channel}`);
  let stopped = false;
  let current: ListenConnection | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let failures = 0;
  let inflight: Promise<void> = Promise.resolve();

  const scheduleRetry = () => {
    if (stopped || retryTimer) return;
    failures += 1;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      inflight = attempt();
    }, backoffMs(failures, 500, 30_000));
  };

  const drop = (connection: ListenConnection, error: unknown) => {
    if (current === connection) current = undefined;
    const marked = connection as ListenConnection & { dropped?: boolean };
    if (marked.dropped) return;
    marked.dropped = true;
    if (!stopped) options.logger?.warn({ err: error, channel: options.channel }, "LISTEN connection lost; reconnecting");
    Promise.resolve()
      .then(() => connection.close())
      .catch(() => {});
    scheduleRetry();
  };

  const attempt = async () => {
    if (stopped) return;
    let connection: ListenConnection | undefined;
    try {
      connection = await options.connect();
      const conn = connection;
      if (stopped) {
        await conn.close();
        return;
      }
      conn.client.on("error", (error) => drop(conn, error));
      conn.client.on("end", () => drop(conn, new Error("connection ended")));
      conn.client.on("notification", (message) => {
        if (message.channel === options.channel) options.onNotification(message.payload);
      });
      await conn.client.query(`LISTEN ${options.channel}`);
      if (stopped) {
        drop(conn, undefined);
        return;
      }
      current = conn;
      failures = 0;
      options.onConnect?.();
    } catch (error) {
      if (connection) drop(connection, error);
      else {
        options.logger?.warn({ err: error, channel: options.channel }, "LISTEN connection failed; retrying");
        scheduleRetry();
      }
    }
  };

  inflight = attempt();

  return {
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      await inflight;
      const connection = current;
      current = undefined;
      if (connection) {
        (connection as ListenConnection & { dropped?: boolean }).dropped = true;
        await Promise.resolve(connection.close()).catch(() => {});
      }
    },
  };
}
