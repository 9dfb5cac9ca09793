import { RefusedUrlError, createGuardedFetch } from './guarded.fetch';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import { coversServer, discoverResourceMetadata } from './resource-metadata.discovery';
import { rejectionOf, useCannedJsonServer } from '../../../../test/support/canned-json.server';

const PATH_FORM = '/.well-known/oauth-protected-resource/mcp';
const ROOT_FORM = '/.well-known/oauth-protected-resource';
const ISSUER = 'https://as.example.com';

describe('discoverResourceMetadata', () => {
  const server = useCannedJsonServer();
  const { answers } = server;
  const fetchFn = createGuardedFetch({ allowInsecureLoopback: true });

  const mcp = (): URL => new URL(`${server.base}/mcp`);
  const port = (): number => Number(new URL(server.base).port);
  const prm = (resource: string, extra: Record<string, unknown> = {}) => ({
    resource,
    authorization_servers: [ISSUER],
    ...extra,
  });
  const refusal = (promise: Promise<unknown>) => rejectionOf(promise, McpAuthorizationError);

  describe('where it looks', () => {
    it("reads the challenge's resource_metadata URL first, and asks no well-known URL when it answers", async () => {
      answers.set('/custom/prm', { body: prm(`${server.base}/mcp`, { scopes_supported: ['named'] }) });
      answers.set(PATH_FORM, { body: prm(`${server.base}/mcp`, { scopes_supported: ['path'] }) });
      answers.set(ROOT_FORM, { body: prm(`${server.base}/mcp`, { scopes_supported: ['root'] }) });
      const found = await discoverResourceMetadata(mcp(), fetchFn, `${server.base}/custom/prm`);
      expect(found?.scopes_supported).toEqual(['named']);
      expect(server.paths).toEqual(['/custom/prm']);
    });

    it("falls through to the path-aware well-known URL when the challenge's URL is 404", async () => {
      answers.set(PATH_FORM, { body: prm(`${server.base}/mcp`, { scopes_supported: ['path'] }) });
      const found = await discoverResourceMetadata(mcp(), fetchFn, `${server.base}/custom/prm`);
      expect(found?.scopes_supported).toEqual(['path']);
      expect(server.paths).toEqual(['/custom/prm', PATH_FORM]);
    });

    it('without a challenge URL, asks the path-aware well-known URL and stops there when it answers', async () => {
      answers.set(PATH_FORM, { body: prm(`${server.base}/mcp`, { scopes_supported: ['path'] }) });
      answers.set(ROOT_FORM, { body: prm(`${server.base}/mcp`, { scopes_supported: ['root'] }) });
      const found = await discoverResourceMetadata(mcp(), fetchFn);
      expect(found?.scopes_supported).toEqual(['path']);
      expect(server.paths).toEqual([PATH_FORM]);
    });

    it('falls through from a 404 at the path-aware URL to the root one', async () => {
      answers.set(ROOT_FORM, { body: prm(`${server.base}/`, { scopes_supported: ['root'] }) });
      const found = await discoverResourceMetadata(mcp(), fetchFn);
      expect(found).toEqual(prm(`${server.base}/`, { scopes_supported: ['root'] }));
      expect(server.paths).toEqual([PATH_FORM, ROOT_FORM]);
    });

    it('falls through any status other than 200 (here a 500)', async () => {
      answers.set(PATH_FORM, { status: 500, body: prm(`${server.base}/mcp`) });
      answers.set(ROOT_FORM, { body: prm(`${server.base}/mcp`, { scopes_supported: ['root'] }) });
      expect((await discoverResourceMetadata(mcp(), fetchFn))?.scopes_supported).toEqual(['root']);
      expect(server.paths).toEqual([PATH_FORM, ROOT_FORM]);
    });

    it('is undefined when none answers, after asking each URL once', async () => {
      expect(await discoverResourceMetadata(mcp(), fetchFn, `${server.base}/custom/prm`)).toBeUndefined();
      expect(server.paths).toEqual(['/custom/prm', PATH_FORM, ROOT_FORM]);
      server.requests.length = 0;
      expect(await discoverResourceMetadata(mcp(), fetchFn)).toBeUndefined();
      expect(server.paths).toEqual([PATH_FORM, ROOT_FORM]);
    });

    it('asks a URL once when the challenge names a well-known one', async () => {
      expect(await discoverResourceMetadata(mcp(), fetchFn, `${server.base}${PATH_FORM}`)).toBeUndefined();
      expect(server.paths).toEqual([PATH_FORM, ROOT_FORM]);
    });

    it('asks only the root URL for a server without a path', async () => {
      answers.set(ROOT_FORM, { body: prm(server.base) });
      expect(await discoverResourceMetadata(new URL(`${server.base}/`), fetchFn)).toEqual(prm(server.base));
      expect(server.paths).toEqual([ROOT_FORM]);
    });

    it("leaves the server URL's query out of the well-known URL", async () => {
      answers.set(PATH_FORM, { body: prm(`${server.base}/mcp`) });
      expect(await discoverResourceMetadata(new URL(`${server.base}/mcp?tenant=1`), fetchFn)).toEqual(
        prm(`${server.base}/mcp`),
      );
      expect(server.paths).toEqual([PATH_FORM]);
    });

    it('ignores a challenge URL that is not an absolute URL, and asks the well-known ones', async () => {
      answers.set(PATH_FORM, { body: prm(`${server.base}/mcp`) });
      expect(await discoverResourceMetadata(mcp(), fetchFn, '/custom/prm')).toEqual(prm(`${server.base}/mcp`));
      expect(server.paths).toEqual([PATH_FORM]);
    });

    it('follows a redirect, and refuses one to a private address (the guard), asking nothing more', async () => {
      answers.set('/moved', { status: 302, location: PATH_FORM });
      answers.set(PATH_FORM, { body: prm(`${server.base}/mcp`) });
      expect(await discoverResourceMetadata(mcp(), fetchFn, `${server.base}/moved`)).toEqual(prm(`${server.base}/mcp`));
      expect(server.paths).toEqual(['/moved', PATH_FORM]);
      server.requests.length = 0;
      answers.set('/to-metadata', { status: 302, location: 'https://169.254.169.254/latest/meta-data/' });
      const error = await rejectionOf(
        discoverResourceMetadata(mcp(), fetchFn, `${server.base}/to-metadata`),
        RefusedUrlError,
      );
      expect(error.message).toContain('169.254.169.254');
      expect(server.paths).toEqual(['/to-metadata']);
    });
  });

  describe('what it accepts', () => {
    it('accepts a resource equal to the server URL, with or without a trailing slash', async () => {
      answers.set(PATH_FORM, { body: prm(`${server.base}/mcp`) });
      expect(await discoverResourceMetadata(mcp(), fetchFn)).toEqual(prm(`${server.base}/mcp`));
      answers.set(PATH_FORM, { body: prm(`${server.base}/mcp/`) });
      expect(await discoverResourceMetadata(mcp(), fetchFn)).toEqual(prm(`${server.base}/mcp/`));
    });

    it('accepts a parent path, and returns the resource as written (it is what tokens are asked for)', async () => {
      answers.set(PATH_FORM, {
        body: prm(`${server.base}/`, { authorization_servers: [ISSUER, 'https://other.example'] }),
      });
      const found = await discoverResourceMetadata(mcp(), fetchFn);
      expect(found?.resource).toBe(`${server.base}/`);
      expect(found?.authorization_servers).toEqual([ISSUER, 'https://other.example']);
    });

    it.each([
      ['another host', () => `http://localhost:${port()}/mcp`],
      ['another port', () => `http://127.0.0.1:${port() + 1}/mcp`],
      ['another scheme', () => `https://127.0.0.1:${port()}/mcp`],
      ['a sibling prefix', () => `${server.base}/mc`],
      ['a longer sibling', () => `${server.base}/mcp-other`],
      ['a child path', () => `${server.base}/mcp/sub`],
      ['a query', () => `${server.base}/mcp?tenant=1`],
      ['a fragment', () => `${server.base}/mcp#top`],
      ['a relative URL', () => '/mcp'],
    ])('refuses a resource with %s, before any other URL is asked', async (_what, resource) => {
      answers.set(PATH_FORM, { body: prm(resource()) });
      answers.set(ROOT_FORM, { body: prm(`${server.base}/mcp`) });
      const error = await refusal(discoverResourceMetadata(mcp(), fetchFn));
      expect(error.message).toBe(
        `The protected resource metadata at ${server.base}${PATH_FORM} is for ${JSON.stringify(resource())}, not ${server.base}/mcp`,
      );
      expect(server.paths).toEqual([PATH_FORM]);
    });

    it("refuses a mismatched resource at the challenge's URL too, without falling back", async () => {
      answers.set('/custom/prm', { body: prm('https://evil.example/mcp') });
      answers.set(PATH_FORM, { body: prm(`${server.base}/mcp`) });
      await refusal(discoverResourceMetadata(mcp(), fetchFn, `${server.base}/custom/prm`));
      expect(server.paths).toEqual(['/custom/prm']);
    });

    it.each<[string, (resource: string) => Record<string, unknown>]>([
      ['no authorization_servers', (resource) => ({ resource })],
      ['an empty authorization_servers', (resource) => ({ resource, authorization_servers: [] })],
      ['authorization_servers as a string', (resource) => ({ resource, authorization_servers: ISSUER })],
      ['an authorization server not a string', (resource) => ({ resource, authorization_servers: [ISSUER, 7] })],
      ['no resource', () => ({ authorization_servers: [ISSUER] })],
      ['a resource not a string', (resource) => ({ resource: [resource], authorization_servers: [ISSUER] })],
    ])('refuses a document with %s', async (_what, document) => {
      answers.set(PATH_FORM, { body: document(`${server.base}/mcp`) });
      const error = await refusal(discoverResourceMetadata(mcp(), fetchFn));
      expect(error.message).toBe(
        `The protected resource metadata at ${server.base}${PATH_FORM} names no resource or no authorization server`,
      );
      expect(server.paths).toEqual([PATH_FORM]);
    });

    it('refuses a 200 that is not JSON', async () => {
      answers.set(PATH_FORM, { raw: '<html>hello</html>' });
      const error = await refusal(discoverResourceMetadata(mcp(), fetchFn));
      expect(error.message).toBe(`${server.base}${PATH_FORM} did not answer a JSON object`);
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
