import { JsonRpcRequest } from '@conduit-mcp/core';
import { headerParamsOf } from '@conduit-mcp/core';
import { checkModernHeaders } from './modern-headers.check';

const call = (args: Record<string, unknown>, name = 'sql'): JsonRpcRequest => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args },
});
const base = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'sql' };
const b64 = (text: string) => `=?base64?${Buffer.from(text).toString('base64')}?=`;

describe('modern request headers', () => {
  const params = headerParamsOf({
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      limit: { type: 'integer', 'x-mcp-header': 'Limit' },
      opts: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry' } } },
    },
  });

  it('finds x-mcp-header arguments at any depth', () => {
    expect(params).toEqual([
      { header: 'Region', path: ['region'] },
      { header: 'Limit', path: ['limit'] },
      { header: 'Dry', path: ['opts', 'dry'] },
    ]);
  });

  it('accepts headers that match the body, plain or base64, numbers compared as numbers', () => {
    const headers = { ...base, 'mcp-param-region': b64('Zürich'), 'mcp-param-limit': '42.0', 'mcp-param-dry': 'true' };
    expect(() =>
      checkModernHeaders(call({ region: 'Zürich', limit: 42, opts: { dry: true } }), '2026-07-28', headers, params),
    ).not.toThrow();
    expect(() => checkModernHeaders(call({}), '2026-07-28', { ...base, 'mcp-name': b64('sql') }, params)).not.toThrow();
  });

  it('takes a value that only looks like the base64 wrapper literally', () => {
    expect(() =>
      checkModernHeaders(
        call({ region: '=?base64?abc' }),
        '2026-07-28',
        { ...base, 'mcp-param-region': '=?base64?abc' },
        params,
      ),
    ).not.toThrow();
  });

  it.each([
    ['a missing Mcp-Method', { ...base, 'mcp-method': undefined }, {}],
    ['a Mcp-Method of another case', { ...base, 'mcp-method': 'TOOLS/CALL' }, {}],
    ['a version header that differs from _meta', { ...base, 'mcp-protocol-version': '2025-11-25' }, {}],
    ['a missing Mcp-Name', { ...base, 'mcp-name': undefined }, {}],
    ['a wrong Mcp-Name', { ...base, 'mcp-name': 'other' }, {}],
    ['a missing Mcp-Param for a given argument', base, { region: 'eu' }],
    ['a Mcp-Param for an absent argument', { ...base, 'mcp-param-region': 'eu' }, {}],
    ['a mismatching Mcp-Param', { ...base, 'mcp-param-region': 'us' }, { region: 'eu' }],
    ['base64 with bad padding', { ...base, 'mcp-param-region': '=?base64?SGVsbG8?=' }, { region: 'Hello' }],
    ['base64 with bad characters', { ...base, 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }, { region: 'Hello' }],
  ])('refuses %s with -32020', (_label, headers, args) => {
    expect(() => checkModernHeaders(call(args), '2026-07-28', headers as Record<string, string>, params)).toThrow(
      expect.objectContaining({ code: -32020 }),
    );
  });
});
