import { checkRevision, readModernMeta } from './modern-meta';

const V = 'io.modelcontextprotocol/protocolVersion';
const C = 'io.modelcontextprotocol/clientCapabilities';

describe('modern _meta', () => {
  it('reads the per-request fields', () => {
    const meta = readModernMeta({
      _meta: { [V]: '2026-07-28', [C]: { sampling: {} }, 'io.modelcontextprotocol/logLevel': 'info' },
    });
    expect(meta).toEqual({
      revision: '2026-07-28',
      clientCapabilities: { sampling: {} },
      clientInfo: undefined,
      logLevel: 'info',
    });
  });

  it.each([
    ['no _meta', {}],
    ['no protocol version', { _meta: { [C]: {} } }],
    ['no client capabilities', { _meta: { [V]: '2026-07-28' } }],
    ['capabilities that are not an object', { _meta: { [V]: '2026-07-28', [C]: [] } }],
    [
      'client info without a version',
      { _meta: { [V]: '2026-07-28', [C]: {}, 'io.modelcontextprotocol/clientInfo': { name: 'x' } } },
    ],
    ['an unknown log level', { _meta: { [V]: '2026-07-28', [C]: {}, 'io.modelcontextprotocol/logLevel': 'loud' } }],
  ])('refuses %s with -32602', (_label, params) => {
    expect(() => readModernMeta(params as Record<string, unknown>)).toThrow(expect.objectContaining({ code: -32602 }));
  });

  it('refuses a revision not served with -32022, naming the supported ones', () => {
    expect(() => checkRevision('1999-01-01', ['2026-07-28'], ['2026-07-28', '2025-11-25'])).toThrow(
      expect.objectContaining({
        code: -32022,
        data: { supported: ['2026-07-28', '2025-11-25'], requested: '1999-01-01' },
      }),
    );
    expect(() => checkRevision('2026-07-28', ['2026-07-28'], ['2026-07-28'])).not.toThrow();
  });
});
