import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/*
 * Ports handed out here are bound later (often after other servers started), so a port the
 * kernel could also give to a `listen(0)` or to an outgoing connection's source port may be
 * taken by then. CI saw exactly that (EADDRINUSE on a port freePort had just returned).
 * So the ports come from below the kernel's ephemeral range, each vitest worker has its
 * own slice, and a process never hands out the same port twice.
 */
const LOWEST = 20_000;
const SLICES = 8;
const handedOut = new Set<number>();

function ephemeralStart(): number {
  try {
    const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    if (low && low > LOWEST + 1000) return low;
  } catch {
    // Not Linux: macOS and Windows start their ephemeral range at 49152.
  }
  return process.platform === "linux" ? 32_768 : 49_152;
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "127.0.0.1", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port nothing listens on now, which the kernel will not hand to anyone else. */
export async function freePort(): Promise<number> {
  return freePortBlock(1);
}

/** `count` consecutive such ports (a launcher that puts its services at base + 1, + 2, ...); returns the first. */
export async function freePortBlock(count: number): Promise<number> {
  const end = ephemeralStart();
  const sliceSize = Math.floor((end - LOWEST) / SLICES);
  const worker = Number(process.env.VITEST_POOL_ID ?? process.env.VITEST_WORKER_ID ?? process.pid);
  const start = LOWEST + (worker % SLICES) * sliceSize;
  const offset = Math.floor(Math.random() * sliceSize);
  const candidates = sliceSize - count + 1;
  for (let i = 0; i < candidates; i++) {
    const first = start + ((offset + i) % candidates);
    const block = Array.from({ length: count }, (_, k) => first + k);
    if (block.some((port) => handedOut.has(port))) continue;
    if ((await Promise.all(block.map(canBind))).every(Boolean)) {
      for (const port of block) handedOut.add(port);
      return first;
    }
  }
  throw new Error(`no ${count} free consecutive ports between ${start} and ${start + sliceSize - 1}`);
}
