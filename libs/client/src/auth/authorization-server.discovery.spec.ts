import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { discoverAuthorizationServer, legacyAuthorizationServer } from './authorization-server.discovery';
import { RefusedUrlError, createGuardedFetch } from './guarded.fetch';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import { loadOAuth4WebApi } from './oauth4webapi.loader';

interface Answer {
  status?: number;
  body?: unknown;
  raw?: string;
}

const RFC8414_ROOT = '/.well-known/oauth-authorization-server';
const OIDC_ROOT = '/.well-known/openid-configuration';

describe('authorization server discovery', () => {
  let server: Server;
  let base: string;
  const answers = new Map<string, Answer>();
  const requested: string[] = [];
  const fetchFn = createGuardedFetch({ allowInsecureLoopback: true });
  const oauth = loadOAuth4WebApi();

  beforeAll(async () => {
    server = createServer((req, res) => {
      requested.push(req.url!);
      const answer = answers.get(req.url!);
      if (!answer) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
      res
        .writeHead(answer.status ?? 200, { 'content-type': 'application/json' })
        .end(answer.raw ?? JSON.stringify(answer.body));
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
    requested.length = 0;
  });

  // `found` tells the documents apart: which URL answered.
  const metadata = (issuer: string, found: string) => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token/${found}`,
    code_challenge_methods_supported: ['S256'],
  });
  const refusal = async (promise: Promise<unknown>): Promise<McpAuthorizationError> => {
    const error = await promise.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(McpAuthorizationError);
    return error as McpAuthorizationError;
  };

  describe('discoverAuthorizationServer, for an issuer with a path', () => {
    const RFC8414_INSERTED = `${RFC8414_ROOT}/tenant1`;
    const OIDC_INSERTED = `${OIDC_ROOT}/tenant1`;
    const OIDC_APPENDED = `/tenant1${OIDC_ROOT}`;
    const issuer = () => `${base}/tenant1`;

    it('asks RFC 8414 inserted, OpenID inserted, OpenID appended, then fails naming the issuer', async () => {
      const error = await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      expect(error.message).toBe(`The authorization server ${issuer()} publishes no metadata`);
      expect(requested).toEqual([RFC8414_INSERTED, OIDC_INSERTED, OIDC_APPENDED]);
    });

    it('takes the RFC 8414 document when there is one, and asks nothing else', async () => {
      answers.set(RFC8414_INSERTED, { body: metadata(issuer(), 'rfc8414') });
      answers.set(OIDC_INSERTED, { body: metadata(issuer(), 'oidc-inserted') });
      const as = await discoverAuthorizationServer(issuer(), fetchFn, oauth);
      expect(as).toEqual(metadata(issuer(), 'rfc8414'));
      expect(requested).toEqual([RFC8414_INSERTED]);
    });

    it('takes the first 200: OpenID inserted before OpenID appended', async () => {
      answers.set(OIDC_INSERTED, { body: metadata(issuer(), 'oidc-inserted') });
      answers.set(OIDC_APPENDED, { body: metadata(issuer(), 'oidc-appended') });
      const as = await discoverAuthorizationServer(issuer(), fetchFn, oauth);
      expect(as.token_endpoint).toBe(`${issuer()}/token/oidc-inserted`);
      expect(requested).toEqual([RFC8414_INSERTED, OIDC_INSERTED]);
    });

    it('reaches OpenID appended past statuses other than 200', async () => {
      answers.set(RFC8414_INSERTED, { status: 500, body: metadata(issuer(), 'rfc8414') });
      answers.set(OIDC_INSERTED, { status: 403, body: metadata(issuer(), 'oidc-inserted') });
      answers.set(OIDC_APPENDED, { body: metadata(issuer(), 'oidc-appended') });
      const as = await discoverAuthorizationServer(issuer(), fetchFn, oauth);
      expect(as.token_endpoint).toBe(`${issuer()}/token/oidc-appended`);
      expect(requested).toEqual([RFC8414_INSERTED, OIDC_INSERTED, OIDC_APPENDED]);
    });

    it('treats a trailing slash on the issuer as no part of the well-known path', async () => {
      answers.set(RFC8414_INSERTED, { body: metadata(`${issuer()}/`, 'rfc8414') });
      expect((await discoverAuthorizationServer(`${issuer()}/`, fetchFn, oauth)).issuer).toBe(`${issuer()}/`);
      expect(requested).toEqual([RFC8414_INSERTED]);
    });

    it('refuses a document naming another issuer, and asks no later URL', async () => {
      answers.set(RFC8414_INSERTED, { body: metadata('https://attacker.example.com', 'rfc8414') });
      answers.set(OIDC_INSERTED, { body: metadata(issuer(), 'oidc-inserted') });
      const error = await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      expect(error.message).toMatch(
        new RegExp(`^The authorization server metadata at ${base}${RFC8414_INSERTED} was refused: .*issuer`),
      );
      expect(error.cause).toBeInstanceOf(Error);
      expect(requested).toEqual([RFC8414_INSERTED]);
    });

    it('refuses a document naming a sibling issuer of the same origin', async () => {
      answers.set(RFC8414_INSERTED, { body: metadata(`${base}/tenant2`, 'rfc8414') });
      await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      expect(requested).toEqual([RFC8414_INSERTED]);
    });

    it('refuses a document without an issuer, and a 200 that is not JSON', async () => {
      const { issuer: _dropped, ...anonymous } = metadata(issuer(), 'rfc8414');
      answers.set(RFC8414_INSERTED, { body: anonymous });
      await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      answers.set(RFC8414_INSERTED, { raw: '<html>login</html>' });
      const error = await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      expect(error.message).toContain(`The authorization server metadata at ${base}${RFC8414_INSERTED} was refused`);
      expect(requested).toEqual([RFC8414_INSERTED, RFC8414_INSERTED]);
    });
  });

  describe('discoverAuthorizationServer, for an issuer without a path', () => {
    it('asks the RFC 8414 root URL, then the OpenID one', async () => {
      const error = await refusal(discoverAuthorizationServer(base, fetchFn, oauth));
      expect(error.message).toBe(`The authorization server ${base} publishes no metadata`);
      expect(requested).toEqual([RFC8414_ROOT, OIDC_ROOT]);
      requested.length = 0;
      answers.set(OIDC_ROOT, { body: metadata(base, 'oidc') });
      expect(await discoverAuthorizationServer(base, fetchFn, oauth)).toEqual(metadata(base, 'oidc'));
      expect(requested).toEqual([RFC8414_ROOT, OIDC_ROOT]);
    });

    it.each([
      ['that is not a URL', () => 'as.example.com'],
      ['that is a URN', () => 'urn:example:as'],
      ['of another scheme', () => `ftp://127.0.0.1/`],
      ['with a query', () => `${base}/tenant1?x=1`],
      ['with an empty query', () => `${base}/tenant1?`],
      ['with a fragment', () => `${base}/tenant1#top`],
    ])('refuses an issuer %s, before any request (RFC 8414 §2)', async (_what, issuer) => {
      const error = await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      expect(error.message).toBe(
        `The authorization server ${JSON.stringify(issuer())} is not an https URL without a query or fragment`,
      );
      expect(requested).toEqual([]);
    });

    it('is refused by the guard for an issuer on a private address, before any request', async () => {
      await expect(discoverAuthorizationServer('https://10.1.2.3', fetchFn, oauth)).rejects.toBeInstanceOf(
        RefusedUrlError,
      );
    });
  });

  describe('legacyAuthorizationServer (a server without protected resource metadata)', () => {
    const mcp = () => new URL(`${base}/mcp`);

    it("takes the metadata at the server's origin, not at its path", async () => {
      answers.set(RFC8414_ROOT, { body: metadata(base, 'rfc8414') });
      answers.set(`${RFC8414_ROOT}/mcp`, { body: metadata(`${base}/mcp`, 'path') });
      expect(await legacyAuthorizationServer(mcp(), fetchFn, oauth)).toEqual({
        as: metadata(base, 'rfc8414'),
        metadataFound: true,
      });
      expect(requested).toEqual([RFC8414_ROOT]);
    });

    it('takes the OpenID document at the origin when there is no RFC 8414 one', async () => {
      answers.set(OIDC_ROOT, { body: metadata(base, 'oidc') });
      const { as, metadataFound } = await legacyAuthorizationServer(mcp(), fetchFn, oauth);
      expect(as.token_endpoint).toBe(`${base}/token/oidc`);
      expect(metadataFound).toBe(true);
      expect(requested).toEqual([RFC8414_ROOT, OIDC_ROOT]);
    });

    it('falls back to /authorize, /token and /register at the origin when there is no metadata', async () => {
      expect(await legacyAuthorizationServer(mcp(), fetchFn, oauth)).toEqual({
        as: {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
        },
        metadataFound: false,
      });
      expect(requested).toEqual([RFC8414_ROOT, OIDC_ROOT]);
    });

    it('refuses metadata at the origin naming another issuer, rather than falling back', async () => {
      answers.set(RFC8414_ROOT, { body: metadata('https://attacker.example.com', 'rfc8414') });
      await refusal(legacyAuthorizationServer(mcp(), fetchFn, oauth));
      expect(requested).toEqual([RFC8414_ROOT]);
    });
  });
});
