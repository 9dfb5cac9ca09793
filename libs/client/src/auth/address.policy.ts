import { LOOPBACK_HOSTNAMES } from '@conduit-mcp/core';
import { LookupAddress, LookupAllOptions, lookup as dnsLookup } from 'node:dns';
import { LookupFunction, isIP } from 'node:net';
import * as ipaddr from 'ipaddr.js';

/** Why an IP address may not be reached, or `undefined` when it may. */
export type AddressPolicy = (address: string) => string | undefined;

export interface AddressPolicyOptions {
  /** Loopback addresses (127.0.0.0/8, ::1) are allowed. */
  allowLoopback: boolean;
  /** CIDRs allowed although they are not public unicast. */
  allowPrivateNetworks: readonly string[];
}

/** `dns.lookup` with `all: true`: the resolver behind {@link guardedLookup}, replaceable in tests. */
export type AllAddressesResolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

type Network = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * The addresses a server we do not trust may send us to: public unicast only (ipaddr.js's `'unicast'` range, after
 * an IPv4-mapped IPv6 address is turned into its IPv4 address), loopback when allowed, and any address inside one of
 * the allowed networks. Throws at once on a CIDR it cannot parse, so a typo never silently allows nothing.
 */
export function createAddressPolicy(options: AddressPolicyOptions): AddressPolicy {
  const networks = options.allowPrivateNetworks.map(parseNetwork);
  return (address) => {
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.process(address);
    } catch {
      return `${address} is not an IP address`;
    }
    const range = parsed.range();
    if (range === 'unicast') return undefined;
    if (range === 'loopback' && options.allowLoopback) return undefined;
    if (networks.some(([network, bits]) => network.kind() === parsed.kind() && parsed.match(network, bits)))
      return undefined;
    return `${address} is not a public address (${range})`;
  };
}

function parseNetwork(cidr: string): Network {
  try {
    return ipaddr.parseCIDR(cidr);
  } catch {
    throw new Error(
      `allowPrivateNetworks: ${JSON.stringify(cidr)} is not a CIDR (write an address and a prefix length, e.g. '10.0.0.0/8' or 'fd00::/8')`,
    );
  }
}

/** The IP address a URL's host names literally (`127.0.0.1`, `[::1]`), which no lookup will check; else `undefined`. */
export function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : undefined;
}

export function isLoopbackAddress(address: string): boolean {
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}

/** A URL host that names this machine: `localhost`, an address in 127.0.0.0/8, `[::1]`. */
export function isLoopbackHostname(hostname: string): boolean {
  if (LOOPBACK_HOSTNAMES.includes(hostname)) return true;
  const literal = literalAddress(hostname);
  return literal !== undefined && isLoopbackAddress(literal);
}

/**
 * A `lookup` for `http.request` that resolves the host itself and fails with `refusal(address)` if any address it
 * resolves to is refused: the check is made on the addresses the socket then connects to, so a DNS answer that
 * changes between a check and the connection (rebinding) cannot slip through. Node asks with `all: true` when it
 * will try several addresses in turn; it then gets every address, all of them checked.
 */
export function guardedLookup(
  refusal: (address: string) => Error | undefined,
  resolve: AllAddressesResolver = (hostname, options, callback) => dnsLookup(hostname, options, callback),
): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses) => {
      if (error) return callback(error, '');
      if (addresses.length === 0)
        return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '');
      for (const { address } of addresses) {
        const refused = refusal(address);
        if (refused) return callback(refused, '');
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
