import { IncomingHttpHeaders, Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { RefusedUrlError, createGuardedFetch } from './guarded.fetch';
import { readJsonDocument } from './json-document.reader';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';

interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

describe('readJsonDocument', () => {
  let server: Server;
  let base: string;
  const answers = new Map<string, Answer>();
  const seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
  const fetchFn = createGuardedFetch({ allowInsecureLoopback: true });

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers });
      const answer = answers.get(req.url!) ?? { status: 404, body: 'Not Found' };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  afterEach(() => {
    answers.clear();
    seen.length = 0;
  });

  const refusal = async (promise: Promise<unknown>): Promise<McpAuthorizationError> => {
    const error = await promise.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(McpAuthorizationError);
    return error as McpAuthorizationError;
  };

  it('reads a JSON object with a GET that asks for JSON', async () => {
    answers.set('/doc', { status: 200, body: '{"resource":"r","nested":{"a":[1,2]}}' });
    expect(await readJsonDocument(fetchFn, `${base}/doc`)).toEqual({ resource: 'r', nested: { a: [1, 2] } });
    expect(seen).toHaveLength(1);
    expect(seen[0].method).toBe('GET');
    expect(seen[0].headers.accept).toBe('application/json');
  });

  it.each([404, 401, 403, 410, 500, 503])(
    'is undefined when the server answers %i, whatever the body',
    async (status) => {
      answers.set('/doc', { status, body: '{"resource":"r"}' });
      expect(await readJsonDocument(fetchFn, `${base}/doc`)).toBeUndefined();
    },
  );

  it('is undefined for a 2xx other than 200', async () => {
    answers.set('/doc', { status: 201, body: '{"resource":"r"}' });
    expect(await readJsonDocument(fetchFn, `${base}/doc`)).toBeUndefined();
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
    answers.set('/doc', { status: 200, body });
    const error = await refusal(readJsonDocument(fetchFn, `${base}/doc`));
    expect(error.message).toBe(`${base}/doc did not answer a JSON object`);
  });

  it('follows a redirect to the document', async () => {
    answers.set('/moved', { status: 302, headers: { location: '/doc' } });
    answers.set('/doc', { status: 200, body: '{"resource":"r"}' });
    expect(await readJsonDocument(fetchFn, `${base}/moved`)).toEqual({ resource: 'r' });
    expect(seen.map((request) => request.url)).toEqual(['/moved', '/doc']);
  });

  it('refuses a redirect to a private address (the guard checks each hop)', async () => {
    answers.set('/moved', { status: 302, headers: { location: 'https://169.254.169.254/latest/meta-data/' } });
    await expect(readJsonDocument(fetchFn, `${base}/moved`)).rejects.toBeInstanceOf(RefusedUrlError);
    expect(seen.map((request) => request.url)).toEqual(['/moved']);
  });
});
