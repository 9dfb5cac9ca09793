import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { RefusedUrlError, createGuardedFetch } from './guarded.fetch';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import { coversServer, discoverResourceMetadata } from './resource-metadata.discovery';

interface Answer {
  status?: number;
  body?: unknown;
  raw?: string;
  location?: string;
}

const PATH_FORM = '/.well-known/oauth-protected-resource/mcp';
const ROOT_FORM = '/.well-known/oauth-protected-resource';
const ISSUER = 'https://as.example.com';

describe('discoverResourceMetadata', () => {
  let server: Server;
  let port: number;
  let base: string;
  const answers = new Map<string, Answer>();
  const requested: string[] = [];
  const fetchFn = createGuardedFetch({ allowInsecureLoopback: true });

  beforeAll(async () => {
    server = createServer((req, res) => {
      requested.push(req.url!);
      const answer = answers.get(req.url!);
      if (!answer) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (answer.location) headers.location = answer.location;
      res.writeHead(answer.status ?? 200, headers).end(answer.raw ?? JSON.stringify(answer.body ?? {}));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  afterEach(() => {
    answers.clear();
    requested.length = 0;
  });

  const mcp = (): URL => new URL(`${base}/mcp`);
  const prm = (resource: string, extra: Record<string, unknown> = {}) => ({
    resource,
    authorization_servers: [ISSUER],
    ...extra,
  });
  const refusal = async (promise: Promise<unknown>): Promise<McpAuthorizationError> => {
    const error = await promise.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(McpAuthorizationError);
    return error as McpAuthorizationError;
  };

  describe('where it looks', () => {
    it("reads the challenge's resource_metadata URL first, and asks no well-known URL when it answers", async () => {
      answers.set('/custom/prm', { body: prm(`${base}/mcp`, { scopes_supported: ['named'] }) });
      answers.set(PATH_FORM, { body: prm(`${base}/mcp`, { scopes_supported: ['path'] }) });
      answers.set(ROOT_FORM, { body: prm(`${base}/mcp`, { scopes_supported: ['root'] }) });
      const found = await discoverResourceMetadata(mcp(), fetchFn, `${base}/custom/prm`);
      expect(found?.scopes_supported).toEqual(['named']);
      expect(requested).toEqual(['/custom/prm']);
    });

    it("falls through to the path-aware well-known URL when the challenge's URL is 404", async () => {
      answers.set(PATH_FORM, { body: prm(`${base}/mcp`, { scopes_supported: ['path'] }) });
      const found = await discoverResourceMetadata(mcp(), fetchFn, `${base}/custom/prm`);
      expect(found?.scopes_supported).toEqual(['path']);
      expect(requested).toEqual(['/custom/prm', PATH_FORM]);
    });

    it('without a challenge URL, asks the path-aware well-known URL and stops there when it answers', async () => {
      answers.set(PATH_FORM, { body: prm(`${base}/mcp`, { scopes_supported: ['path'] }) });
      answers.set(ROOT_FORM, { body: prm(`${base}/mcp`, { scopes_supported: ['root'] }) });
      const found = await discoverResourceMetadata(mcp(), fetchFn);
      expect(found?.scopes_supported).toEqual(['path']);
      expect(requested).toEqual([PATH_FORM]);
    });

    it('falls through from a 404 at the path-aware URL to the root one', async () => {
      answers.set(ROOT_FORM, { body: prm(`${base}/`, { scopes_supported: ['root'] }) });
      const found = await discoverResourceMetadata(mcp(), fetchFn);
      expect(found).toEqual(prm(`${base}/`, { scopes_supported: ['root'] }));
      expect(requested).toEqual([PATH_FORM, ROOT_FORM]);
    });

    it('falls through any status other than 200 (here a 500)', async () => {
      answers.set(PATH_FORM, { status: 500, body: prm(`${base}/mcp`) });
      answers.set(ROOT_FORM, { body: prm(`${base}/mcp`, { scopes_supported: ['root'] }) });
      expect((await discoverResourceMetadata(mcp(), fetchFn))?.scopes_supported).toEqual(['root']);
      expect(requested).toEqual([PATH_FORM, ROOT_FORM]);
    });

    it('is undefined when none answers, after asking each URL once', async () => {
      expect(await discoverResourceMetadata(mcp(), fetchFn, `${base}/custom/prm`)).toBeUndefined();
      expect(requested).toEqual(['/custom/prm', PATH_FORM, ROOT_FORM]);
      requested.length = 0;
      expect(await discoverResourceMetadata(mcp(), fetchFn)).toBeUndefined();
      expect(requested).toEqual([PATH_FORM, ROOT_FORM]);
    });

    it('asks a URL once when the challenge names a well-known one', async () => {
      expect(await discoverResourceMetadata(mcp(), fetchFn, `${base}${PATH_FORM}`)).toBeUndefined();
      expect(requested).toEqual([PATH_FORM, ROOT_FORM]);
    });

    it('asks only the root URL for a server without a path', async () => {
      answers.set(ROOT_FORM, { body: prm(base) });
      expect(await discoverResourceMetadata(new URL(`${base}/`), fetchFn)).toEqual(prm(base));
      expect(requested).toEqual([ROOT_FORM]);
    });

    it("leaves the server URL's query out of the well-known URL", async () => {
      answers.set(PATH_FORM, { body: prm(`${base}/mcp`) });
      expect(await discoverResourceMetadata(new URL(`${base}/mcp?tenant=1`), fetchFn)).toEqual(prm(`${base}/mcp`));
      expect(requested).toEqual([PATH_FORM]);
    });

    it('ignores a challenge URL that is not an absolute URL, and asks the well-known ones', async () => {
      answers.set(PATH_FORM, { body: prm(`${base}/mcp`) });
      expect(await discoverResourceMetadata(mcp(), fetchFn, '/custom/prm')).toEqual(prm(`${base}/mcp`));
      expect(requested).toEqual([PATH_FORM]);
    });

    it('follows a redirect, and refuses one to a private address (the guard), asking nothing more', async () => {
      answers.set('/moved', { status: 302, location: PATH_FORM });
      answers.set(PATH_FORM, { body: prm(`${base}/mcp`) });
      expect(await discoverResourceMetadata(mcp(), fetchFn, `${base}/moved`)).toEqual(prm(`${base}/mcp`));
      expect(requested).toEqual(['/moved', PATH_FORM]);
      requested.length = 0;
      answers.set('/to-metadata', { status: 302, location: 'https://169.254.169.254/latest/meta-data/' });
      const error = await discoverResourceMetadata(mcp(), fetchFn, `${base}/to-metadata`).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RefusedUrlError);
      expect((error as Error).message).toContain('169.254.169.254');
      expect(requested).toEqual(['/to-metadata']);
    });
  });

  describe('what it accepts', () => {
    it('accepts a resource equal to the server URL, with or without a trailing slash', async () => {
      answers.set(PATH_FORM, { body: prm(`${base}/mcp`) });
      expect(await discoverResourceMetadata(mcp(), fetchFn)).toEqual(prm(`${base}/mcp`));
      answers.set(PATH_FORM, { body: prm(`${base}/mcp/`) });
      expect(await discoverResourceMetadata(mcp(), fetchFn)).toEqual(prm(`${base}/mcp/`));
    });

    it('accepts a parent path, and returns the resource as written (it is what tokens are asked for)', async () => {
      answers.set(PATH_FORM, { body: prm(`${base}/`, { authorization_servers: [ISSUER, 'https://other.example'] }) });
      const found = await discoverResourceMetadata(mcp(), fetchFn);
      expect(found?.resource).toBe(`${base}/`);
      expect(found?.authorization_servers).toEqual([ISSUER, 'https://other.example']);
    });

    it.each([
      ['another host', () => `http://localhost:${port}/mcp`],
      ['another port', () => `http://127.0.0.1:${port + 1}/mcp`],
      ['another scheme', () => `https://127.0.0.1:${port}/mcp`],
      ['a sibling prefix', () => `${base}/mc`],
      ['a longer sibling', () => `${base}/mcp-other`],
      ['a child path', () => `${base}/mcp/sub`],
      ['a query', () => `${base}/mcp?tenant=1`],
      ['a fragment', () => `${base}/mcp#top`],
      ['a relative URL', () => '/mcp'],
    ])('refuses a resource with %s, before any other URL is asked', async (_what, resource) => {
      answers.set(PATH_FORM, { body: prm(resource()) });
      answers.set(ROOT_FORM, { body: prm(`${base}/mcp`) });
      const error = await refusal(discoverResourceMetadata(mcp(), fetchFn));
      expect(error.message).toBe(
        `The protected resource metadata at ${base}${PATH_FORM} is for ${JSON.stringify(resource())}, not ${base}/mcp`,
      );
      expect(requested).toEqual([PATH_FORM]);
    });

    it("refuses a mismatched resource at the challenge's URL too, without falling back", async () => {
      answers.set('/custom/prm', { body: prm('https://evil.example/mcp') });
      answers.set(PATH_FORM, { body: prm(`${base}/mcp`) });
      await refusal(discoverResourceMetadata(mcp(), fetchFn, `${base}/custom/prm`));
      expect(requested).toEqual(['/custom/prm']);
    });

    it.each<[string, (resource: string) => Record<string, unknown>]>([
      ['no authorization_servers', (resource) => ({ resource })],
      ['an empty authorization_servers', (resource) => ({ resource, authorization_servers: [] })],
      ['authorization_servers as a string', (resource) => ({ resource, authorization_servers: ISSUER })],
      ['an authorization server not a string', (resource) => ({ resource, authorization_servers: [ISSUER, 7] })],
      ['no resource', () => ({ authorization_servers: [ISSUER] })],
      ['a resource not a string', (resource) => ({ resource: [resource], authorization_servers: [ISSUER] })],
    ])('refuses a document with %s', async (_what, document) => {
      answers.set(PATH_FORM, { body: document(`${base}/mcp`) });
      const error = await refusal(discoverResourceMetadata(mcp(), fetchFn));
      expect(error.message).toBe(
        `The protected resource metadata at ${base}${PATH_FORM} names no resource or no authorization server`,
      );
      expect(requested).toEqual([PATH_FORM]);
    });

    it('refuses a 200 that is not JSON', async () => {
      answers.set(PATH_FORM, { raw: '<html>hello</html>' });
      const error = await refusal(discoverResourceMetadata(mcp(), fetchFn));
      expect(error.message).toBe(`${base}${PATH_FORM} did not answer a JSON object`);
    });
  });
});

describe('coversServer', () => {
  const server = new URL('https://mcp.example.com/api/mcp');

  it.each([
    ['https://mcp.example.com/api/mcp', true],
    ['https://mcp.example.com/api/mcp/', true],
    ['https://mcp.example.com/api', true],
    ['https://mcp.example.com/api/', true],
    ['https://mcp.example.com/', true],
    ['https://mcp.example.com', true],
    ['HTTPS://MCP.EXAMPLE.COM:443/api/mcp', true],
    ['https://mcp.example.com/api/mc', false],
    ['https://mcp.example.com/api/mcp-other', false],
    ['https://mcp.example.com/ap', false],
    ['https://mcp.example.com/api/mcp/tools', false],
    ['https://mcp.example.com/API/mcp', false],
    ['https://mcp.example.com/other/mcp', false],
    ['https://other.example.com/api/mcp', false],
    ['https://sub.mcp.example.com/api/mcp', false],
    ['https://mcp.example.com.evil.example/api/mcp', false],
    ['http://mcp.example.com/api/mcp', false],
    ['https://mcp.example.com:8443/api/mcp', false],
    ['https://mcp.example.com/api/mcp?tenant=1', false],
    ['https://mcp.example.com/api/mcp?', false],
    ['https://mcp.example.com/api/mcp#top', false],
    ['https://mcp.example.com/api/mcp#', false],
    ['https://user:secret@mcp.example.com/api/mcp', false],
    [' https://mcp.example.com/api/mcp', false],
    ['https://mcp.example.com/api/m\tcp', false],
    ['/api/mcp', false],
    ['mcp.example.com/api/mcp', false],
    ['not a url', false],
    ['', false],
  ])('%j covers https://mcp.example.com/api/mcp: %s', (resource, expected) => {
    expect(coversServer(resource, server)).toBe(expected);
  });

  it('compares with a server URL as given: a trailing slash, a query, the root', () => {
    expect(coversServer('https://mcp.example.com/api/mcp', new URL('https://mcp.example.com/api/mcp/'))).toBe(true);
    expect(coversServer('https://mcp.example.com/api/mcp', new URL('https://mcp.example.com/api/mcp?t=1'))).toBe(true);
    expect(coversServer('https://mcp.example.com/', new URL('https://mcp.example.com'))).toBe(true);
    expect(coversServer('https://mcp.example.com/api', new URL('https://mcp.example.com/'))).toBe(false);
    expect(coversServer('http://127.0.0.1:3000/mcp', new URL('http://127.0.0.1:3000/mcp'))).toBe(true);
    expect(coversServer('http://localhost:3000/mcp', new URL('http://127.0.0.1:3000/mcp'))).toBe(false);
  });
});
