import type { FakeNetwork } from "./fake-network";

/** The JSON body of the last call to `METHOD /path`, as it went over the wire. */
export function sentBody(network: FakeNetwork, method: string, path: string): unknown {
  const call = [...network.fetch.mock.calls].reverse().find(([input, init]) => {
    const url = new URL(String(input), "http://localhost");
    return url.pathname === path && ((init as RequestInit | undefined)?.method ?? "GET").toUpperCase() === method;
  });
  if (!call) throw new Error(`no ${method} ${path} was sent`);
  return JSON.parse(String((call[1] as RequestInit).body));
}
