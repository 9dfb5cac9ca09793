import { createHash } from 'node:crypto';
import { INACTIVE_TTL_MS, IntrospectionCache, IntrospectionVerdict } from './introspection.cache';
import type { McpAuthInfo } from './mcp-auth-info.interface';

const auth = (subject: string, claims: Record<string, unknown> = {}): McpAuthInfo => ({
  subject,
  scopes: ['notes:read'],
  claims: { sub: subject, ...claims },
});

/** A cache on a clock the test moves, and an introspection that counts its calls. */
function setup(options: { ttlMs?: number; maxEntries?: number; maxBytes?: number } = {}) {
  let now = 1_000_000;
  const cache = new IntrospectionCache({ ttlMs: 60_000, maxEntries: 100, ...options, now: () => now });
  const calls: string[] = [];
  const lookup = (token: string, verdict: IntrospectionVerdict = { active: true, auth: auth(token) }) =>
    cache.lookup(token, async () => {
      calls.push(token);
      return verdict;
    });
  return { cache, calls, lookup, advance: (ms: number) => (now += ms), now: () => now };
}

describe('IntrospectionCache', () => {
  it('answers a token seen within the TTL from memory', async () => {
    const { calls, lookup, advance } = setup({ ttlMs: 1_000 });
    expect(await lookup('t1')).toMatchObject({ subject: 't1' });
    advance(999);
    expect(await lookup('t1')).toMatchObject({ subject: 't1' });
    expect(calls).toEqual(['t1']);
    advance(1_000);
    await lookup('t1');
    expect(calls).toEqual(['t1', 't1']);
  });

  it('never keeps an accepted token past its exp, even within the TTL', async () => {
    const { calls, lookup, advance, now } = setup({ ttlMs: 60_000 });
    const verdict: IntrospectionVerdict = { active: true, auth: auth('short'), expiresAtMs: now() + 2_000 };
    await lookup('short', verdict);
    advance(1_999);
    await lookup('short', verdict);
    expect(calls).toHaveLength(1);
    advance(1);
    await lookup('short', verdict);
    expect(calls).toHaveLength(2);
  });

  it('remembers an inactive token only for a short fixed time', async () => {
    const { cache, calls, lookup, advance } = setup({ ttlMs: 60_000 });
    expect(await lookup('revoked', { active: false })).toBeUndefined();
    expect(cache.size).toBe(1);
    advance(INACTIVE_TTL_MS - 1);
    expect(await lookup('revoked', { active: false })).toBeUndefined();
    expect(calls).toHaveLength(1);
    advance(1);
    expect(await lookup('revoked', { active: false })).toBeUndefined();
    expect(calls).toHaveLength(2);
    expect(INACTIVE_TTL_MS).toBeLessThan(60_000);
  });

  it('keeps an inactive verdict no longer than the TTL either, and nothing at all with a TTL of 0', async () => {
    const short = setup({ ttlMs: 100 });
    await short.lookup('x', { active: false });
    short.advance(100);
    await short.lookup('x', { active: false });
    expect(short.calls).toHaveLength(2);

    const none = setup({ ttlMs: 0 });
    await none.lookup('a');
    await none.lookup('b', { active: false });
    expect(none.cache.size).toBe(0);
    await none.lookup('a');
    expect(none.calls).toEqual(['a', 'b', 'a']);
  });

  it('keeps at most maxEntries verdicts, evicting the least recently used', async () => {
    const { cache, calls, lookup } = setup({ maxEntries: 3 });
    for (const token of ['a', 'b', 'c']) await lookup(token);
    await lookup('a'); // a is now the most recently used: b goes first
    await lookup('d');
    expect(cache.size).toBe(3);
    calls.length = 0;
    for (const token of ['a', 'c', 'd']) await lookup(token);
    expect(calls).toEqual([]);
    await lookup('b');
    expect(calls).toEqual(['b']);
    expect(cache.size).toBe(3);
  });

  it('keeps at most maxBytes, whatever the entry count allows, and skips an entry larger than that', async () => {
    const { cache, lookup } = setup({ maxEntries: 1_000, maxBytes: 4_096 });
    const padding = 'x'.repeat(1_000);
    for (let i = 0; i < 20; i++) await lookup(`token-${i}`, { active: true, auth: auth(`s${i}`, { padding }) });
    expect(cache.bytes).toBeLessThanOrEqual(4_096);
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThan(20);
    // The newest are the ones kept.
    expect(cache.keys()).toContain(IntrospectionCache.keyOf('token-19'));
    expect(cache.keys()).not.toContain(IntrospectionCache.keyOf('token-0'));

    const huge = { active: true as const, auth: auth('huge', { padding: 'y'.repeat(10_000) }) };
    expect(await lookup('huge', huge)).toMatchObject({ subject: 'huge' });
    expect(cache.keys()).not.toContain(IntrospectionCache.keyOf('huge'));
    expect(cache.bytes).toBeLessThanOrEqual(4_096);
  });

  it('keys entries by the SHA-256 of the token, never the token itself', async () => {
    const { cache, lookup } = setup();
    const token = 'opaque-secret-token-value';
    await lookup(token);
    const key = createHash('sha256').update(token).digest('base64url');
    expect(cache.keys()).toEqual([key]);
    expect(JSON.stringify(cache.keys())).not.toContain(token);
  });

  it('makes one introspection for concurrent lookups of one token, and shares its answer', async () => {
    const { cache } = setup();
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const introspect = async (): Promise<IntrospectionVerdict> => {
      calls++;
      await gate;
      return { active: true, auth: auth('alice') };
    };
    const lookups = Array.from({ length: 10 }, () => cache.lookup('same', introspect));
    release();
    const answers = await Promise.all(lookups);
    expect(calls).toBe(1);
    expect(answers.every((answer) => answer?.subject === 'alice')).toBe(true);
    // Each caller gets its own copy: changing one changes no other.
    answers[0]!.scopes.push('admin');
    (answers[0]!.claims as Record<string, unknown>).sub = 'mallory';
    expect(answers[1]).toMatchObject({ scopes: ['notes:read'], claims: { sub: 'alice' } });
    expect(await cache.lookup('same', introspect)).toMatchObject({ scopes: ['notes:read'], claims: { sub: 'alice' } });
  });

  it('remembers nothing of a failed introspection: every waiter gets the failure, the next lookup asks again', async () => {
    const { cache, calls, lookup } = setup();
    const failing = () => Promise.reject(new Error('endpoint down'));
    const both = await Promise.allSettled([cache.lookup('t', failing), cache.lookup('t', failing)]);
    expect(both.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(cache.size).toBe(0);
    expect(await lookup('t')).toMatchObject({ subject: 't' });
    expect(calls).toEqual(['t']);
  });
});
