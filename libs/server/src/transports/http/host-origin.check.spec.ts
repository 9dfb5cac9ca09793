import { LOOPBACK_HOSTNAMES } from '@conduit-mcp/core';
import { isAllowedHost, isAllowedOrigin } from './host-origin.check';

describe('isAllowedHost', () => {
  it.each([
    'localhost',
    'localhost:3000',
    '127.0.0.1',
    '127.0.0.1:65535',
    '[::1]',
    '[::1]:8080',
    'LOCALHOST:3000',
    'LocalHost',
  ])('accepts the loopback host %s by default', (host) => {
    expect(isAllowedHost(host, undefined)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'evil.example.com',
    'evil.example.com:3000',
    'localhost.evil.example.com',
    '127.0.0.1.nip.io',
    '127.0.0.2',
    '0.0.0.0',
    '::1',
    '[::1',
    '[::2]:80',
    'localhost:',
    'localhost:abc',
    'localhost:3000:1',
    'user@localhost',
    'localhost/path',
  ])('refuses %p by default', (host) => {
    expect(isAllowedHost(host, undefined)).toBe(false);
  });

  it('matches configured entries: a bare host any port, host:port exactly, case-insensitively', () => {
    const allowed = ['MCP.example.com', 'api.example.com:8443'];
    expect(isAllowedHost('mcp.example.com:1234', allowed)).toBe(true);
    expect(isAllowedHost('api.example.com:8443', allowed)).toBe(true);
    expect(isAllowedHost('api.example.com:443', allowed)).toBe(false);
    expect(isAllowedHost('api.example.com', allowed)).toBe(false);
    expect(isAllowedHost('localhost', allowed)).toBe(false);
  });

  it('accepts everything when turned off', () => {
    expect(isAllowedHost(undefined, false)).toBe(true);
    expect(isAllowedHost('evil.example.com', false)).toBe(true);
  });

  it('exports the loopback names', () => {
    expect(LOOPBACK_HOSTNAMES).toEqual(['localhost', '127.0.0.1', '[::1]']);
  });
});

describe('isAllowedOrigin', () => {
  it('accepts requests without an Origin (non-browser clients)', () => {
    expect(isAllowedOrigin(undefined, undefined)).toBe(true);
    expect(isAllowedOrigin(undefined, ['https://app.example.com'])).toBe(true);
  });

  it.each([
    'http://localhost',
    'http://localhost:5173',
    'https://127.0.0.1:8443',
    'http://[::1]:3000',
    'HTTP://LOCALHOST:3000',
  ])('accepts the loopback origin %s by default', (origin) => {
    expect(isAllowedOrigin(origin, undefined)).toBe(true);
  });

  it.each([
    'null',
    '',
    'http://evil.example.com',
    'http://localhost.evil.example.com',
    'file://',
    'ftp://localhost',
    'chrome-extension://abcdef',
    'http://user@localhost',
    'http://localhost/path',
    'http://localhost:3000?x=1',
    'localhost:3000',
  ])('refuses %p by default', (origin) => {
    expect(isAllowedOrigin(origin, undefined)).toBe(false);
  });

  it('matches configured origins after normalization, port included', () => {
    const allowed = ['https://App.Example.com', 'http://localhost:3000/', 'chrome-extension://abcdef'];
    expect(isAllowedOrigin('https://app.example.com', allowed)).toBe(true);
    expect(isAllowedOrigin('https://app.example.com:443', allowed)).toBe(true);
    expect(isAllowedOrigin('https://app.example.com:8443', allowed)).toBe(false);
    expect(isAllowedOrigin('http://app.example.com', allowed)).toBe(false);
    expect(isAllowedOrigin('http://localhost:3000', allowed)).toBe(true);
    expect(isAllowedOrigin('http://localhost:3001', allowed)).toBe(false);
    expect(isAllowedOrigin('chrome-extension://abcdef', allowed)).toBe(true);
    expect(isAllowedOrigin('null', allowed)).toBe(false);
  });

  it('accepts everything when turned off', () => {
    expect(isAllowedOrigin('null', false)).toBe(true);
  });
});
