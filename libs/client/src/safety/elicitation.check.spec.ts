import { ElicitRequestParams, SchemaValidator } from '@conduit-mcp/core';
import { checkElicitationAnswer, checkElicitationRequest } from './elicitation.check';

const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Name' },
    age: { type: 'integer', minimum: 0 },
    password: { type: 'string', title: 'Password' },
    colors: { type: 'array', items: { type: 'string', enum: ['red', 'blue'] } },
  },
  required: ['name'],
};
const form = { message: 'Who are you?', requestedSchema: schema };
const url = (href: unknown) => ({ mode: 'url', message: 'Sign in', elicitationId: 'e1', url: href });
const both = ['form', 'url'] as const;
const origin = 'https://weather.example';

function refusal(result: { ok: boolean; error?: { code: number; message: string } }) {
  expect(result.ok).toBe(false);
  return result.error as { code: number; message: string };
}

describe('checkElicitationRequest', () => {
  it('accepts a form request, mode defaulting to form, with the fields and their hints', () => {
    const result = checkElicitationRequest(form, ['form'], undefined);
    expect(result).toEqual({
      ok: true,
      value: {
        params: form,
        context: {
          mode: 'form',
          fields: {
            name: { sensitiveSuspected: false },
            age: { sensitiveSuspected: false },
            password: { sensitiveSuspected: true },
            colors: { sensitiveSuspected: false },
          },
        },
      },
    });
  });

  it('keeps a field named __proto__ as a field', () => {
    const requestedSchema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}');
    const params = { message: 'm', requestedSchema };
    const result = checkElicitationRequest(params, ['form'], undefined);
    expect(result.ok && Object.keys(result.value.context.fields ?? {})).toEqual(['__proto__']);
  });

  it.each([
    ['params not an object', 'x', ['form'], 'elicitation params must be an object'],
    ['an unknown mode', { ...form, mode: 'voice' }, both, 'unknown elicitation mode "voice"'],
    ['a non-string mode', { ...form, mode: 7 }, both, 'unknown elicitation mode "7"'],
    ['a null mode', { ...form, mode: null }, both, 'unknown elicitation mode "null"'],
    ['url mode, only form declared', url('https://a.example'), ['form'], 'elicitation mode "url" is not supported'],
    ['form mode when only url is declared', form, ['url'], 'elicitation mode "form" is not supported'],
    ['no message', { requestedSchema: schema }, ['form'], 'message must be a string'],
  ] as const)('refuses %s with -32602', (_, params, modes, message) => {
    expect(refusal(checkElicitationRequest(params, modes, undefined))).toEqual({ code: -32602, message });
  });

  it('sanitizes an echoed mode', () => {
    const error = refusal(checkElicitationRequest({ ...form, mode: 'x\u202e\ny' }, both, undefined));
    expect(error.message).toBe('unknown elicitation mode "xy"');
  });

  it.each([
    ['no schema', undefined],
    ['a nested object', { type: 'object', properties: { a: { type: 'object', properties: {} } } }],
    ['a non-object schema', { type: 'array', properties: {} }],
    ['a $ref', { type: 'object', properties: { a: { type: 'string', $ref: '#/x' } } }],
  ])('refuses a form schema with %s, -32602', (_, requestedSchema) => {
    const error = refusal(checkElicitationRequest({ message: 'm', requestedSchema }, ['form'], undefined));
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^requestedSchema is not a flat form: /);
  });

  it('sanitizes property names echoed in schema problems', () => {
    const requestedSchema = { type: 'object', properties: { 'evil\u202e\u2028name': { type: 'object' } } };
    const error = refusal(checkElicitationRequest({ message: 'm', requestedSchema }, ['form'], undefined));
    expect(error.message).toContain('"evilname"');
    expect(error.message).not.toMatch(/[\u202e\u2028]/);
  });

  it('accepts an https URL with the url, host, idn and origin in the context', () => {
    const result = checkElicitationRequest(url('https://Weather.Example:443/auth?x=1#f'), both, origin);
    expect(result).toEqual({
      ok: true,
      value: {
        params: url('https://weather.example/auth?x=1#f'),
        context: {
          mode: 'url',
          url: 'https://weather.example/auth?x=1#f',
          host: 'weather.example',
          idn: false,
          originMismatch: false,
        },
      },
    });
  });

  it('flags punycode hosts, also from Unicode names', () => {
    const idn = (href: string) => {
      const result = checkElicitationRequest(url(href), ['url'], undefined);
      return result.ok ? [result.value.context.host, result.value.context.idn] : undefined;
    };
    expect(idn('https://xn--pple-43d.com/login')).toEqual(['xn--pple-43d.com', true]);
    expect(idn('https://аpple.com/login')).toEqual(['xn--pple-43d.com', true]);
    expect(idn('https://login.xn--bcher-kva.example/')).toEqual(['login.xn--bcher-kva.example', true]);
    expect(idn('https://apple.com/xn--a')).toEqual(['apple.com', false]);
  });

  it('reports an origin mismatch unless the URL has the known origin', () => {
    const mismatch = (href: string, known: string | undefined) => {
      const result = checkElicitationRequest(url(href), ['url'], known);
      return result.ok && result.value.context.originMismatch;
    };
    expect(mismatch('https://weather.example/a', origin)).toBe(false);
    expect(mismatch('https://weather.example/a', 'https://weather.example/mcp')).toBe(false);
    expect(mismatch('https://weather.example/a', undefined)).toBe(true);
    expect(mismatch('https://evil.example/a', origin)).toBe(true);
    expect(mismatch('https://weather.example:8443/a', origin)).toBe(true);
    expect(mismatch('https://sub.weather.example/a', origin)).toBe(true);
    expect(mismatch('https://weather.example/a', 'http://weather.example')).toBe(true);
    expect(mismatch('https://weather.example/a', 'not a url')).toBe(true);
  });

  it.each([
    ['javascript:', 'javascript:alert(1)'],
    ['http:', 'http://weather.example/auth'],
    ['file:', 'file:///etc/passwd'],
    ['data:', 'data:text/html,<script>1</script>'],
    ['a relative URL', '/auth'],
    ['a protocol-relative URL', '//weather.example/auth'],
    ['a scheme without slashes', 'https:weather.example'],
    ['garbage', 'https://'],
    ['a non-string', 42],
    ['no url', undefined],
  ])('refuses %s with -32602', (_, href) => {
    expect(refusal(checkElicitationRequest(url(href), ['url'], origin))).toEqual({
      code: -32602,
      message: 'url must be an absolute https URL',
    });
  });

  it.each(['https://user@weather.example/', 'https://user:pw@weather.example/', 'https://:pw@weather.example/'])(
    'refuses credentials in %s with -32602',
    (href) => {
      expect(refusal(checkElicitationRequest(url(href), ['url'], origin))).toEqual({
        code: -32602,
        message: 'url must not carry credentials',
      });
    },
  );

  it('refuses a URL request without an elicitationId, -32602', () => {
    const { elicitationId: _, ...params } = url('https://weather.example/');
    expect(refusal(checkElicitationRequest(params, ['url'], origin)).code).toBe(-32602);
  });
});

describe('checkElicitationAnswer', () => {
  const schemas = new SchemaValidator();
  const formRequest = form as ElicitRequestParams;
  const urlRequest = url('https://weather.example/') as ElicitRequestParams;
  const badAction = 'elicitation result action must be accept, decline or cancel';
  const missingName = "must have required property 'name'";

  it('accepts a form answer that fits the schema', () => {
    const result = { action: 'accept', content: { name: 'Ada', age: 36, colors: ['red'] }, _meta: { k: 1 } };
    expect(checkElicitationAnswer(formRequest, result, schemas)).toEqual({ ok: true, value: result });
  });

  it('keeps only action, content and _meta', () => {
    const answer = checkElicitationAnswer(formRequest, { action: 'accept', content: { name: 'A' }, extra: 1 }, schemas);
    expect(answer).toEqual({ ok: true, value: { action: 'accept', content: { name: 'A' } } });
  });

  it('accepts a URL accept without content', () => {
    expect(checkElicitationAnswer(urlRequest, { action: 'accept' }, schemas)).toEqual({
      ok: true,
      value: { action: 'accept' },
    });
  });

  it('drops content from a decline or a cancel, so the answer still goes out', () => {
    for (const action of ['decline', 'cancel']) {
      for (const request of [formRequest, urlRequest]) {
        expect(checkElicitationAnswer(request, { action, content: { name: 'x' } }, schemas)).toEqual({
          ok: true,
          value: { action },
        });
      }
    }
  });

  it.each([
    ['a non-object result', formRequest, null, 'elicitation result must be an object'],
    ['no action', formRequest, {}, badAction],
    ['an unknown action', formRequest, { action: 'ok' }, badAction],
    ['content on a URL accept', urlRequest, { action: 'accept', content: {} }, 'a URL-mode accept carries no content'],
    ['non-object content', formRequest, { action: 'accept', content: 'Ada' }, 'elicitation content must be an object'],
    ['a missing required field', formRequest, { action: 'accept', content: { age: 3 } }, missingName],
    ['content omitted with a required field', formRequest, { action: 'accept' }, missingName],
    ['a wrong type', formRequest, { action: 'accept', content: { name: 'A', age: 'old' } }, '/age must be integer'],
    ['a bad enum', formRequest, { action: 'accept', content: { name: 'A', colors: ['green'] } }, 'must be one of'],
    ['an undeclared field', formRequest, { action: 'accept', content: { name: 'A', x: '1' } }, 'undeclared field "x"'],
    [
      'a nested value',
      formRequest,
      { action: 'accept', content: { name: { first: 'A' } } },
      'content field "name" must be a string, number, boolean or string array',
    ],
  ])('refuses %s with -32603', (_, request, result, message) => {
    const error = refusal(checkElicitationAnswer(request, result, schemas));
    expect(error.code).toBe(-32603);
    expect(error.message).toContain(message);
  });

  it('refuses with -32603 when the requested schema does not compile', () => {
    const request = {
      message: 'm',
      requestedSchema: { type: 'object', properties: { a: { type: 'string', pattern: '(' } } },
    } as ElicitRequestParams;
    expect(refusal(checkElicitationAnswer(request, { action: 'accept', content: { a: 'x' } }, schemas))).toEqual({
      code: -32603,
      message: 'elicitation requestedSchema cannot be compiled',
    });
  });
});
