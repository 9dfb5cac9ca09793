import { RefusedUrlError, createGuardedFetch } from './guarded.fetch';
import { readJsonDocument } from './json-document.reader';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import { rejectionOf, useCannedJsonServer } from '../../../../test/support/canned-json.server';

describe('readJsonDocument', () => {
  const server = useCannedJsonServer();
  const { answers } = server;
  const fetchFn = createGuardedFetch({ allowInsecureLoopback: true });

  const refusal = (promise: Promise<unknown>) => rejectionOf(promise, McpAuthorizationError);

  it('reads a JSON object with a GET that asks for JSON', async () => {
    answers.set('/doc', { status: 200, raw: '{"resource":"r","nested":{"a":[1,2]}}' });
    expect(await readJsonDocument(fetchFn, `${server.base}/doc`)).toEqual({ resource: 'r', nested: { a: [1, 2] } });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].method).toBe('GET');
    expect(server.requests[0].headers.accept).toBe('application/json');
  });

  it.each([404, 401, 403, 410, 500, 503])(
    'is undefined when the server answers %i, whatever the body',
    async (status) => {
      answers.set('/doc', { status, raw: '{"resource":"r"}' });
      expect(await readJsonDocument(fetchFn, `${server.base}/doc`)).toBeUndefined();
    },
  );

  it('is undefined for a 2xx other than 200', async () => {
    answers.set('/doc', { status: 201, raw: '{"resource":"r"}' });
    expect(await readJsonDocument(fetchFn, `${server.base}/doc`)).toBeUndefined();
  });

  it.each([
    ['an array', '[{"resource":"r"}]'],
    ['null', 'null'],
    ['a string', '"resource"'],
    ['a number', '42'],
    ['HTML', '<html>metadata</html>'],
    ['truncated JSON', '{"resource":'],
    ['nothing', ''],
  ])('refuses a 200 whose body is %s, naming the URL', async (_what, body) => {
    answers.set('/doc', { status: 200, raw: body });
    const error = await refusal(readJsonDocument(fetchFn, `${server.base}/doc`));
    expect(error.message).toBe(`${server.base}/doc did not answer a JSON object`);
  });

  it('follows a redirect to the document', async () => {
    answers.set('/moved', { status: 302, location: '/doc' });
    answers.set('/doc', { status: 200, raw: '{"resource":"r"}' });
    expect(await readJsonDocument(fetchFn, `${server.base}/moved`)).toEqual({ resource: 'r' });
    expect(server.paths).toEqual(['/moved', '/doc']);
  });

  it('refuses a redirect to a private address (the guard checks each hop)', async () => {
    answers.set('/moved', { status: 302, location: 'https://169.254.169.254/latest/meta-data/' });
    await expect(readJsonDocument(fetchFn, `${server.base}/moved`)).rejects.toBeInstanceOf(RefusedUrlError);
    expect(server.paths).toEqual(['/moved']);
  });
});
