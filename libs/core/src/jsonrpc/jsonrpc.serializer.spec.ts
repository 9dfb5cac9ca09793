import fc from 'fast-check';
import { isConstant, markConstant, serializeMessage } from './jsonrpc.serializer';

describe('serializeMessage', () => {
  it('writes what JSON.stringify writes, for any message', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.oneof(fc.string(), fc.integer()), fc.boolean(), (value, id, constant) => {
        const result = { value };
        if (constant) markConstant(result);
        const response = { jsonrpc: '2.0', id, result };
        expect(serializeMessage(response)).toBe(JSON.stringify(response));
        expect(serializeMessage(value)).toBe(JSON.stringify(value));
      }),
    );
  });

  it('serializes a constant result once and reuses its JSON', () => {
    const result = markConstant({ tools: [{ name: 'a' }] });
    const spy = jest.spyOn(JSON, 'stringify');
    try {
      serializeMessage({ jsonrpc: '2.0', id: 1, result });
      serializeMessage({ jsonrpc: '2.0', id: 2, result });
      const ofResult = spy.mock.calls.filter(([value]) => value === result);
      expect(ofResult).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
    expect(serializeMessage({ jsonrpc: '2.0', id: 'x"y', result })).toBe(
      '{"jsonrpc":"2.0","id":"x\\"y","result":{"tools":[{"name":"a"}]}}',
    );
  });

  it('takes the plain path for a response shaped differently (other keys, other order)', () => {
    const result = markConstant({ ok: true });
    const reordered = { id: 1, jsonrpc: '2.0', result };
    const extra = { jsonrpc: '2.0', id: 1, result, note: 'x' };
    expect(serializeMessage(reordered)).toBe(JSON.stringify(reordered));
    expect(serializeMessage(extra)).toBe(JSON.stringify(extra));
  });

  it('marks values, not copies of them', () => {
    const value = markConstant({ a: 1 });
    expect(isConstant(value)).toBe(true);
    expect(isConstant({ ...value })).toBe(false);
    expect(isConstant(null)).toBe(false);
  });
});
