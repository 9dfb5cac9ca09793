import fc from 'fast-check';
import { decodeHeaderValue, encodeHeaderValue, headerDeclarationProblems, headerParamsOf } from './param-headers';

describe('parameter headers', () => {
  it('encodes unsafe values as base64 and decodes them back', () => {
    expect(encodeHeaderValue('us-west1')).toBe('us-west1');
    expect(encodeHeaderValue('Hello, 世界')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
    expect(encodeHeaderValue(' padded ')).toBe('=?base64?IHBhZGRlZCA=?=');
    expect(encodeHeaderValue('=?base64?literal?=')).toBe('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
    expect(encodeHeaderValue(42)).toBe('42');
    fc.assert(fc.property(fc.string(), (value) => decodeHeaderValue(encodeHeaderValue(value)) === value));
  });

  it('takes malformed wrappers literally or refuses malformed base64', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
    expect(decodeHeaderValue('=?base64?SGVsbG8?=')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?SGVs!!!bG8=?=')).toBeUndefined();
  });

  it('finds declarations and their problems', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string', 'x-mcp-header': 'Region' },
        b: { type: 'string', 'x-mcp-header': 'region' },
        c: {
          type: 'object',
          'x-mcp-header': 'Obj',
          properties: { d: { type: 'boolean', 'x-mcp-header': 'Bad Name' } },
        },
      },
    };
    expect(headerParamsOf(schema).map((p) => p.path.join('.'))).toEqual(['a', 'b', 'c', 'c.d']);
    expect(headerDeclarationProblems(schema)).toEqual([
      'b: x-mcp-header "region" is used twice',
      'c: x-mcp-header needs a string, integer or boolean',
      'c.d: x-mcp-header must be an HTTP header name',
    ]);
    expect(
      headerDeclarationProblems({ type: 'object', properties: { a: { type: 'integer', 'x-mcp-header': 'Limit' } } }),
    ).toEqual([]);
    expect(
      headerDeclarationProblems({ type: 'object', properties: { n: { type: 'number', 'x-mcp-header': 'N' } } }),
    ).toEqual(['n: x-mcp-header needs a string, integer or boolean']);
    expect(
      headerDeclarationProblems({
        type: 'object',
        properties: { list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } } },
      }),
    ).toEqual(['list: x-mcp-header inside items cannot be mirrored']);
  });
});
