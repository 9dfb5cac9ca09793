import type { ElicitRequestParams } from '../protocol/protocol.types';
import { checkCreateMessageResult, checkElicitResult, checkListRootsResult } from './input-answer.check';
import { SchemaValidator } from './schema.validator';

const schemas = new SchemaValidator();
const form = {
  message: 'Who?',
  requestedSchema: {
    type: 'object',
    properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
    required: ['name'],
  },
} as ElicitRequestParams;
const url = { mode: 'url', message: 'Sign in', url: 'https://example.com/', elicitationId: 'e' } as ElicitRequestParams;

const problemOf = (check: { ok: boolean; problem?: string }) => (check.ok ? undefined : check.problem);

describe('checkElicitResult', () => {
  it('accepts a fitting form answer, keeping only action, content and _meta', () => {
    expect(
      checkElicitResult(
        form,
        { action: 'accept', content: { name: 'Ada', tags: ['a'] }, _meta: { k: 1 }, x: 1 },
        schemas,
      ),
    ).toEqual({ ok: true, value: { action: 'accept', content: { name: 'Ada', tags: ['a'] }, _meta: { k: 1 } } });
  });

  it('drops content from a decline or a cancel, and accepts a URL-mode accept without content', () => {
    expect(checkElicitResult(form, { action: 'decline', content: { junk: { deep: 1 } } }, schemas)).toEqual({
      ok: true,
      value: { action: 'decline' },
    });
    expect(checkElicitResult(url, { action: 'cancel' }, schemas)).toEqual({ ok: true, value: { action: 'cancel' } });
    expect(checkElicitResult(url, { action: 'accept' }, schemas)).toEqual({ ok: true, value: { action: 'accept' } });
  });

  it.each([
    ['a non-object answer', form, 'accept', 'elicitation result must be an object'],
    ['an unknown action', form, { action: 'maybe' }, 'elicitation result action must be accept, decline or cancel'],
    ['content on a URL-mode accept', url, { action: 'accept', content: {} }, 'a URL-mode accept carries no content'],
    ['non-object content', form, { action: 'accept', content: ['Ada'] }, 'elicitation content must be an object'],
    [
      'an undeclared field',
      form,
      { action: 'accept', content: { name: 'Ada', role: 'admin' } },
      'elicitation content has undeclared field "role"',
    ],
    [
      'a value that is no form value',
      form,
      { action: 'accept', content: { name: { first: 'Ada' } } },
      'elicitation content field "name" must be a string, number, boolean or string array',
    ],
    [
      'content that breaks the schema',
      form,
      { action: 'accept', content: { tags: ['c'] } },
      'elicitation content does not fit the schema: must have required property \'name\'; /tags/0 must be one of "a", "b"',
    ],
    [
      'a form request without a schema',
      { message: 'm' } as ElicitRequestParams,
      { action: 'accept', content: { a: '1' } },
      'elicitation content has undeclared field "a"',
    ],
  ])('refuses %s', (_name, request, answer, problem) => {
    expect(problemOf(checkElicitResult(request, answer, schemas))).toBe(problem);
  });
});

describe('checkCreateMessageResult', () => {
  const result = { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' };

  it('accepts a block or an array of blocks as content', () => {
    expect(checkCreateMessageResult(result)).toEqual({ ok: true, value: result });
    expect(checkCreateMessageResult({ ...result, content: [result.content] }).ok).toBe(true);
  });

  it.each([
    ['a non-object result', null, 'sampling result must be an object'],
    ['an unknown role', { ...result, role: 'system' }, 'sampling result role must be user or assistant'],
    ['no content', { ...result, content: 'hi' }, 'sampling result content must be a content block or an array of them'],
    ['no model', { ...result, model: undefined }, 'sampling result model must be a string'],
  ])('refuses %s', (_name, answer, problem) => {
    expect(problemOf(checkCreateMessageResult(answer))).toBe(problem);
  });
});

describe('checkListRootsResult', () => {
  it('accepts roots with string URIs, and refuses anything else', () => {
    expect(checkListRootsResult({ roots: [{ uri: 'file:///a', name: 'a' }] }).ok).toBe(true);
    for (const answer of [null, {}, { roots: {} }, { roots: [{ name: 'a' }] }, { roots: [{ uri: 1 }] }]) {
      expect(problemOf(checkListRootsResult(answer))).toBe('roots result must list roots, each with a string uri');
    }
  });
});
