import fc from 'fast-check';
import { classifyMessage, parseJson } from './jsonrpc.classifier';
import { ErrorCode } from './jsonrpc.errors';

const RUNS = { numRuns: 100 };

const safeIntegerId = fc.oneof(
  fc.integer(),
  fc.constantFrom(0, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
  fc.maxSafeInteger(),
);
const validId = fc.oneof(fc.string({ unit: 'binary', maxLength: 16 }), safeIntegerId);
const fractionalId = fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n));
const unsafeIntegerId = fc.oneof(
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 90n }).map((n) => Number(n)),
  fc.bigInt({ min: -(2n ** 90n), max: -(2n ** 53n) }).map((n) => Number(n)),
  fc.constantFrom(2 ** 53, -(2 ** 53), 1e21, Number.MAX_VALUE, -Number.MAX_VALUE),
);

const method = fc.string({ unit: 'binary', minLength: 1, maxLength: 24 });
const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 });
const errorObject = fc.record(
  {
    code: fc.oneof(fc.integer(), fc.constantFrom(-32700, -32600, -32601, -32602, -32603)),
    message: fc.string(),
    data: fc.jsonValue({ maxDepth: 2 }),
  },
  { requiredKeys: ['code', 'message'] },
);

const request = fc.record(
  { jsonrpc: fc.constant('2.0' as const), id: validId, method, params: jsonObject },
  { requiredKeys: ['jsonrpc', 'id', 'method'] },
);
const notification = fc.record(
  { jsonrpc: fc.constant('2.0' as const), method, params: jsonObject },
  { requiredKeys: ['jsonrpc', 'method'] },
);
const resultResponse = fc.record({ jsonrpc: fc.constant('2.0' as const), id: validId, result: jsonObject });
const errorResponse = fc.record({ jsonrpc: fc.constant('2.0' as const), id: validId, error: errorObject });

// Values shaped like messages whose fields are each either plausible or arbitrary: they reach every branch.
const field = <T>(plausible: fc.Arbitrary<T>) => fc.oneof(plausible, fc.jsonValue({ maxDepth: 2 }));
const messageLike = fc.record(
  {
    jsonrpc: field(fc.constantFrom('2.0', '1.0', '')),
    id: field(fc.oneof(validId, fractionalId, unsafeIntegerId, fc.constant(null))),
    method: field(method),
    params: field(jsonObject),
    result: field(jsonObject),
    error: field(errorObject),
  },
  { requiredKeys: [] },
);

/** What a value becomes on the wire: -0 is the JSON number 0. */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('classifyMessage (properties)', () => {
  it('never throws and answers every JSON value with a kind; refusals are -32600 with a valid or null id', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), messageLike, fc.anything()), (value) => {
        const result = classifyMessage(value);
        expect(['request', 'notification', 'response', 'invalid']).toContain(result.kind);
        if (result.kind !== 'invalid') return;
        expect(result.error.code).toBe(ErrorCode.InvalidRequest);
        expect(result.id === null || typeof result.id === 'string' || Number.isSafeInteger(result.id)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on any JSON text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.json(), fc.string({ unit: 'binary' })), (text) => {
        const parsed = parseJson(text);
        if (!parsed.ok) return expect(parsed.error.code).toBe(ErrorCode.ParseError);
        expect(() => classifyMessage(parsed.value)).not.toThrow();
      }),
      RUNS,
    );
  });

  it.each([
    ['request', 'request', request],
    ['notification', 'notification', notification],
    ['result response', 'response', resultResponse],
    ['error response', 'response', errorResponse],
  ] as const)(
    'classifies a generated valid %s, read from its JSON text, as itself with the same fields',
    (_label, kind, arb) => {
      fc.assert(
        fc.property(arb, (message) => {
          const parsed = parseJson(JSON.stringify(message));
          expect(parsed.ok).toBe(true);
          expect(classifyMessage(parsed.ok && parsed.value)).toEqual({ kind, message: wire(message) });
        }),
        RUNS,
      );
    },
  );

  it('classifies an error response with a null id as a response without an id', () => {
    fc.assert(
      fc.property(errorObject, (error) => {
        expect(classifyMessage({ jsonrpc: '2.0', id: null, error })).toEqual({
          kind: 'response',
          message: { jsonrpc: '2.0', error },
        });
      }),
      RUNS,
    );
  });

  it('keeps only the known fields of a valid message, whatever else it carries', () => {
    const extra = fc.dictionary(
      fc.string().filter((key) => !['jsonrpc', 'id', 'method', 'params', 'result', 'error'].includes(key)),
      fc.jsonValue({ maxDepth: 2 }),
      { maxKeys: 4 },
    );
    fc.assert(
      fc.property(request, extra, (message, more) => {
        expect(classifyMessage({ ...more, ...message })).toEqual({ kind: 'request', message });
      }),
      RUNS,
    );
  });

  it('accepts a string or safe-integer id on requests and responses', () => {
    fc.assert(
      fc.property(validId, (id) => {
        expect(classifyMessage({ jsonrpc: '2.0', id, method: 'ping' })).toMatchObject({
          kind: 'request',
          message: { id },
        });
        expect(classifyMessage({ jsonrpc: '2.0', id, result: {} })).toMatchObject({
          kind: 'response',
          message: { id },
        });
      }),
      RUNS,
    );
  });

  // MCP ids are strings or integers, and an integer past 2^53 cannot round-trip through a JavaScript peer.
  it.each([
    ['a fractional', fractionalId],
    ['an unsafe-integer', unsafeIntegerId],
  ] as const)('refuses %s id with -32600, on requests and responses alike', (_label, badId) => {
    fc.assert(
      fc.property(badId, (id) => {
        for (const message of [
          { jsonrpc: '2.0', id, method: 'ping' },
          { jsonrpc: '2.0', id, result: {} },
          { jsonrpc: '2.0', id, error: { code: 1, message: 'x' } },
        ]) {
          const result = classifyMessage(message);
          expect(result.kind).toBe('invalid');
          expect(result.kind === 'invalid' && result.error.code).toBe(ErrorCode.InvalidRequest);
        }
      }),
      RUNS,
    );
  });
});
