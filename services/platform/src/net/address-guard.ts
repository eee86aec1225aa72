import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * The one place that decides which network addresses a server-side fetch of a URL a user
 * gave may reach (media's URL import, the BFF's image proxy). Only public unicast
 * addresses, unless a CIDR is explicitly allowed.
 */
export interface AddressPolicy {
  /** CIDRs allowed although not public unicast (an intranet install, tests on loopback). */
  allow: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

/** A policy from CIDR strings; `variable` names the setting in the error for a bad one. */
export function addressPolicy(allowCidrs: readonly string[], variable = "allowed CIDRs"): AddressPolicy {
  return {
    allow: allowCidrs.map((cidr) => {
      try {
        return ipaddr.parseCIDR(cidr);
      } catch {
        throw new Error(`${variable}: "${cidr}" is not a CIDR such as 10.0.0.0/8`);
      }
    }),
  };
}

/**
 * Only public unicast addresses, unless explicitly allowed: loopback (127/8, ::1),
 * private (10/8, 172.16/12, 192.168/16), unspecified (0.0.0.0, ::), link-local (169.254/16
 * with the cloud metadata address, fe80::/10), carrier-grade NAT (100.100.100.200),
 * unique-local (fd00:ec2::254), reserved (192.0.0.192), multicast, broadcast, and the IPv6
 * forms that embed an IPv4 address (mapped, NAT64, 6to4, Teredo) are all refused.
 */
export function isAllowedAddress(address: string, policy: AddressPolicy): boolean {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // Only the four-dotted-decimal IPv4 form and standard IPv6: callers pass what a URL
    // parser or a resolver produced (the URL parser has already turned 2130706433,
    // 0x7f000001, 0177.0.0.1 and 0 into dotted decimal).
    if (!ipaddr.IPv6.isValid(address) && !ipaddr.IPv4.isValidFourPartDecimal(address)) return false;
    ip = ipaddr.process(address); // unwraps ::ffff:a.b.c.d to the IPv4 address it is
  } catch {
    return false;
  }
  if (policy.allow.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits))) return true;
  return ip.range() === "unicast";
}

/** Resolves a host name to all its addresses (dns.lookup by default; tests inject their own). */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

export class ForbiddenAddressError extends Error {
  override readonly name = "ForbiddenAddressError";
  readonly code = "EFORBIDDENADDRESS";
  constructor(host: string) {
    super(`${host} is or resolves to a forbidden address`);
  }
}

export class UnresolvableHostError extends Error {
  override readonly name = "UnresolvableHostError";
  constructor(readonly host: string, cause?: unknown) {
    super(`${host} could not be resolved`, { cause });
  }
}

/** Names that mean this machine whatever DNS says (RFC 6761). */
const isLocalName = (host: string) => {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost") || name === "localhost.localdomain";
};

/** The URL's host without IPv6 brackets. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * Resolves like dns.lookup, then refuses the whole answer if any address is not allowed,
 * so the connection can only go to an address that was checked (no window for DNS
 * rebinding between the check and the connect). Pass it as `lookup` to http.request.
 */
export function guardedLookup(policy: AddressPolicy, resolver: HostResolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolveAllowed(hostname, policy, resolver).then(
      (list) => {
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
        const wanted = options.family === 4 || options.family === 6 ? list.find((a) => a.family === options.family) : list[0];
        const chosen = wanted ?? list[0]!;
        callback(null, chosen.address, chosen.family);
      },
      (error: Error) => callback(error as NodeJS.ErrnoException, "", 0),
    );
  };
}

/**
 * All the addresses a host (name or literal) stands for, if every one is allowed; throws
 * ForbiddenAddressError or UnresolvableHostError otherwise.
 */
export async function resolveAllowed(host: string, policy: AddressPolicy, resolver: HostResolver = systemResolver): Promise<LookupAddress[]> {
  const bare = host.startsWith("[") ? host.slice(1, -1) : host;
  if (ipaddr.isValid(bare)) {
    if (!isAllowedAddress(bare, policy)) throw new ForbiddenAddressError(host);
    return [{ address: bare, family: ipaddr.IPv6.isValid(bare) ? 6 : 4 }];
  }
  if (isLocalName(bare)) throw new ForbiddenAddressError(host);
  let list: LookupAddress[];
  try {
    list = await resolver(bare);
  } catch (error) {
    throw new UnresolvableHostError(bare, error);
  }
  if (list.length === 0) throw new UnresolvableHostError(bare);
  if (list.some((a) => !isAllowedAddress(a.address, policy))) throw new ForbiddenAddressError(host);
  return list;
}
