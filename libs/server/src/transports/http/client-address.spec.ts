import type { IncomingMessage } from 'node:http';
import { addressKey, sessionOwner } from './client-address';

describe('addressKey', () => {
  it('keeps an IPv4 address, also when IPv4-mapped', () => {
    expect(addressKey('127.0.0.1')).toBe('127.0.0.1');
    expect(addressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const key = addressKey('2001:db8:0:1:2:3:4:5');
    expect(key).toBe('2001:db8:0:1::/64');
    expect(addressKey('2001:DB8:0:1::ffff')).toBe(key);
    expect(addressKey('2001:0db8:0000:0001:aaaa::1')).toBe(key);
    expect(addressKey('2001:db8:0:2::1')).not.toBe(key);
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
  });

  it('makes the empty key of an unknown address', () => {
    expect(addressKey(undefined)).toBe('');
  });
});

describe('sessionOwner', () => {
  const req = (remoteAddress: string) => ({ socket: { remoteAddress } }) as unknown as IncomingMessage;

  it("is the authenticator's subject, else the address; never one for the other", () => {
    expect(sessionOwner(req('10.0.0.1'), { subject: 'alice', scopes: [], claims: {} })).toBe('subject:alice');
    expect(sessionOwner(req('10.0.0.1'), undefined)).toBe('address:10.0.0.1');
    expect(sessionOwner(req('10.0.0.1'), { scopes: [], claims: {} })).toBe('address:10.0.0.1');
    expect(sessionOwner(req('10.0.0.1'), { subject: '10.0.0.1', scopes: [], claims: {} })).not.toBe(
      sessionOwner(req('10.0.0.1'), undefined),
    );
  });
});
