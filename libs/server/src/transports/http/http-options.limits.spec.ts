import { DEFAULT_CONNECTIONS, resolveHttpOptions } from './http-options';

describe('resolveHttpOptions: the hardening limits', () => {
  it('applies the documented defaults', () => {
    const options = resolveHttpOptions();
    expect(options.bodyDrain).toEqual({ maxBytes: 8 * 1024 * 1024, timeoutMs: 5_000 });
    expect(options.maxBatchLength).toBe(32);
    expect(options.retryAfterSeconds).toBe(30);
    expect(options.connections).toEqual({
      max: 1_024,
      maxPerAddress: 128,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
      idleTimeoutMs: 60_000,
    });
  });

  it('takes each connection setting on its own, and false for none', () => {
    expect(resolveHttpOptions({ connections: { maxPerAddress: 4, idleTimeoutMs: 0 } }).connections).toEqual({
      ...DEFAULT_CONNECTIONS,
      maxPerAddress: 4,
      idleTimeoutMs: 0,
    });
    expect(resolveHttpOptions({ connections: false }).connections).toBe(false);
  });

  it('refuses at start-up a bound that is not a positive integer, naming it', () => {
    expect(() => resolveHttpOptions({ maxSessions: 0 })).toThrow('maxSessions must be an integer >= 1');
    expect(() => resolveHttpOptions({ maxSessionsPerPrincipal: 1.5 })).toThrow('maxSessionsPerPrincipal');
    expect(() => resolveHttpOptions({ maxBatchLength: 0 })).toThrow('maxBatchLength');
    expect(() => resolveHttpOptions({ connections: { max: 0 } })).toThrow('connections.max must be an integer >= 1');
    expect(() => resolveHttpOptions({ connections: { requestTimeoutMs: -1 } })).toThrow('connections.requestTimeoutMs');
    expect(() => resolveHttpOptions({ bodyDrainTimeoutMs: Number.NaN })).toThrow('bodyDrainTimeoutMs');
  });
});
