import { isIPv6 } from 'node:net';
import type { IncomingMessage } from 'node:http';
import { principalOf } from '../../auth/auth-principal';
import type { McpAuthInfo } from '../../auth/mcp-auth-info.interface';

/**
 * The key under which a client address is counted: an IPv4 address as it is (an IPv4-mapped IPv6 one too), an IPv6
 * address by its /64 prefix — one subscriber usually holds a whole /64, so counting full addresses would give a
 * single client 2^64 allowances. An unknown address (the socket already closed) is the empty key.
 */
export function addressKey(remoteAddress: string | undefined): string {
  if (!remoteAddress) return '';
  const lower = remoteAddress.toLowerCase();
  if (lower.startsWith('::ffff:') && lower.includes('.')) return lower.slice(7);
  if (!isIPv6(lower)) return lower;
  const zone = lower.indexOf('%');
  const address = zone === -1 ? lower : lower.slice(0, zone);
  const [head, tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = address.includes('::') ? (tail ? tail.split(':') : []) : [];
  // A dotted IPv4 tail (`64:ff9b::192.0.2.1`) stands for two groups.
  const rightGroups = right.reduce((count, group) => count + (group.includes('.') ? 2 : 1), 0);
  const groups = [...left, ...Array<string>(Math.max(0, 8 - left.length - rightGroups)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * Whom a new session counts against (`http.maxSessionsPerPrincipal`): the caller's principal (`principalOf`), else the
 * client's address (an anonymous client cannot name itself: a header would let it pick a fresh name per session).
 */
export function sessionOwner(req: IncomingMessage, auth: McpAuthInfo | undefined): string {
  const principal = principalOf(auth);
  return principal !== undefined ? `subject:${principal}` : `address:${addressKey(req.socket?.remoteAddress)}`;
}
