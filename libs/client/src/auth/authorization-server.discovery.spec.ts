import { discoverAuthorizationServer, legacyAuthorizationServer } from './authorization-server.discovery';
import { RefusedUrlError, createGuardedFetch } from './guarded.fetch';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import { loadOAuth4WebApi } from './oauth4webapi.loader';
import { rejectionOf, useCannedJsonServer } from '../../../../test/support/canned-json.server';

const RFC8414_ROOT = '/.well-known/oauth-authorization-server';
const OIDC_ROOT = '/.well-known/openid-configuration';

describe('authorization server discovery', () => {
  const server = useCannedJsonServer();
  const { answers } = server;
  const fetchFn = createGuardedFetch({ allowInsecureLoopback: true });
  const oauth = loadOAuth4WebApi();

  // `found` tells the documents apart: which URL answered.
  const metadata = (issuer: string, found: string) => ({
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token/${found}`,
    code_challenge_methods_supported: ['S256'],
  });
  const refusal = (promise: Promise<unknown>) => rejectionOf(promise, McpAuthorizationError);

  describe('discoverAuthorizationServer, for an issuer with a path', () => {
    const RFC8414_INSERTED = `${RFC8414_ROOT}/tenant1`;
    const OIDC_INSERTED = `${OIDC_ROOT}/tenant1`;
    const OIDC_APPENDED = `/tenant1${OIDC_ROOT}`;
    const issuer = () => `${server.base}/tenant1`;

    it('asks RFC 8414 inserted, OpenID inserted, OpenID appended, then fails naming the issuer', async () => {
      const error = await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      expect(error.message).toBe(`The authorization server ${issuer()} publishes no metadata`);
      expect(server.paths).toEqual([RFC8414_INSERTED, OIDC_INSERTED, OIDC_APPENDED]);
    });

    it('takes the RFC 8414 document when there is one, and asks nothing else', async () => {
      answers.set(RFC8414_INSERTED, { body: metadata(issuer(), 'rfc8414') });
      answers.set(OIDC_INSERTED, { body: metadata(issuer(), 'oidc-inserted') });
      const as = await discoverAuthorizationServer(issuer(), fetchFn, oauth);
      expect(as).toEqual(metadata(issuer(), 'rfc8414'));
      expect(server.paths).toEqual([RFC8414_INSERTED]);
    });

    it('takes the first 200: OpenID inserted before OpenID appended', async () => {
      answers.set(OIDC_INSERTED, { body: metadata(issuer(), 'oidc-inserted') });
      answers.set(OIDC_APPENDED, { body: metadata(issuer(), 'oidc-appended') });
      const as = await discoverAuthorizationServer(issuer(), fetchFn, oauth);
      expect(as.token_endpoint).toBe(`${issuer()}/token/oidc-inserted`);
      expect(server.paths).toEqual([RFC8414_INSERTED, OIDC_INSERTED]);
    });

    it('reaches OpenID appended past statuses other than 200', async () => {
      answers.set(RFC8414_INSERTED, { status: 500, body: metadata(issuer(), 'rfc8414') });
      answers.set(OIDC_INSERTED, { status: 403, body: metadata(issuer(), 'oidc-inserted') });
      answers.set(OIDC_APPENDED, { body: metadata(issuer(), 'oidc-appended') });
      const as = await discoverAuthorizationServer(issuer(), fetchFn, oauth);
      expect(as.token_endpoint).toBe(`${issuer()}/token/oidc-appended`);
      expect(server.paths).toEqual([RFC8414_INSERTED, OIDC_INSERTED, OIDC_APPENDED]);
    });

    it('treats a trailing slash on the issuer as no part of the well-known path', async () => {
      answers.set(RFC8414_INSERTED, { body: metadata(`${issuer()}/`, 'rfc8414') });
      expect((await discoverAuthorizationServer(`${issuer()}/`, fetchFn, oauth)).issuer).toBe(`${issuer()}/`);
      expect(server.paths).toEqual([RFC8414_INSERTED]);
    });

    it('refuses a document naming another issuer, and asks no later URL', async () => {
      answers.set(RFC8414_INSERTED, { body: metadata('https://attacker.example.com', 'rfc8414') });
      answers.set(OIDC_INSERTED, { body: metadata(issuer(), 'oidc-inserted') });
      const error = await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      expect(error.message).toMatch(
        new RegExp(`^The authorization server metadata at ${server.base}${RFC8414_INSERTED} was refused: .*issuer`),
      );
      expect(error.cause).toBeInstanceOf(Error);
      expect(server.paths).toEqual([RFC8414_INSERTED]);
    });

    it('refuses a document naming a sibling issuer of the same origin', async () => {
      answers.set(RFC8414_INSERTED, { body: metadata(`${server.base}/tenant2`, 'rfc8414') });
      await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      expect(server.paths).toEqual([RFC8414_INSERTED]);
    });

    it('refuses a document without an issuer, and a 200 that is not JSON', async () => {
      const { issuer: _dropped, ...anonymous } = metadata(issuer(), 'rfc8414');
      answers.set(RFC8414_INSERTED, { body: anonymous });
      await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      answers.set(RFC8414_INSERTED, { raw: '<html>login</html>' });
      const error = await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      expect(error.message).toContain(
        `The authorization server metadata at ${server.base}${RFC8414_INSERTED} was refused`,
      );
      expect(server.paths).toEqual([RFC8414_INSERTED, RFC8414_INSERTED]);
    });
  });

  describe('discoverAuthorizationServer, for an issuer without a path', () => {
    it('asks the RFC 8414 root URL, then the OpenID one', async () => {
      const error = await refusal(discoverAuthorizationServer(server.base, fetchFn, oauth));
      expect(error.message).toBe(`The authorization server ${server.base} publishes no metadata`);
      expect(server.paths).toEqual([RFC8414_ROOT, OIDC_ROOT]);
      server.requests.length = 0;
      answers.set(OIDC_ROOT, { body: metadata(server.base, 'oidc') });
      expect(await discoverAuthorizationServer(server.base, fetchFn, oauth)).toEqual(metadata(server.base, 'oidc'));
      expect(server.paths).toEqual([RFC8414_ROOT, OIDC_ROOT]);
    });

    it.each([
      ['that is not a URL', () => 'as.example.com'],
      ['that is a URN', () => 'urn:example:as'],
      ['of another scheme', () => `ftp://127.0.0.1/`],
      ['with a query', () => `${server.base}/tenant1?x=1`],
      ['with an empty query', () => `${server.base}/tenant1?`],
      ['with a fragment', () => `${server.base}/tenant1#top`],
    ])('refuses an issuer %s, before any request (RFC 8414 §2)', async (_what, issuer) => {
      const error = await refusal(discoverAuthorizationServer(issuer(), fetchFn, oauth));
      expect(error.message).toBe(
        `The authorization server ${JSON.stringify(issuer())} is not an https URL without a query or fragment`,
      );
      expect(server.paths).toEqual([]);
    });

    it('is refused by the guard for an issuer on a private address, before any request', async () => {
      await expect(discoverAuthorizationServer('https://10.1.2.3', fetchFn, oauth)).rejects.toBeInstanceOf(
        RefusedUrlError,
      );
    });
  });

  describe('legacyAuthorizationServer (a server without protected resource metadata)', () => {
    const mcp = () => new URL(`${server.base}/mcp`);

    it("takes the metadata at the server's origin, not at its path", async () => {
      answers.set(RFC8414_ROOT, { body: metadata(server.base, 'rfc8414') });
      answers.set(`${RFC8414_ROOT}/mcp`, { body: metadata(`${server.base}/mcp`, 'path') });
      expect(await legacyAuthorizationServer(mcp(), fetchFn, oauth)).toEqual({
        as: metadata(server.base, 'rfc8414'),
        metadataFound: true,
      });
      expect(server.paths).toEqual([RFC8414_ROOT]);
    });

    it('takes the OpenID document at the origin when there is no RFC 8414 one', async () => {
      answers.set(OIDC_ROOT, { body: metadata(server.base, 'oidc') });
      const { as, metadataFound } = await legacyAuthorizationServer(mcp(), fetchFn, oauth);
      expect(as.token_endpoint).toBe(`${server.base}/token/oidc`);
      expect(metadataFound).toBe(true);
      expect(server.paths).toEqual([RFC8414_ROOT, OIDC_ROOT]);
    });

    it('falls back to /authorize, /token and /register at the origin when there is no metadata', async () => {
      expect(await legacyAuthorizationServer(mcp(), fetchFn, oauth)).toEqual({
        as: {
          issuer: server.base,
          authorization_endpoint: `${server.base}/authorize`,
          token_endpoint: `${server.base}/token`,
          registration_endpoint: `${server.base}/register`,
        },
        metadataFound: false,
      });
      expect(server.paths).toEqual([RFC8414_ROOT, OIDC_ROOT]);
    });

    it('refuses metadata at the origin naming another issuer, rather than falling back', async () => {
      answers.set(RFC8414_ROOT, { body: metadata('https://attacker.example.com', 'rfc8414') });
      await refusal(legacyAuthorizationServer(mcp(), fetchFn, oauth));
      expect(server.paths).toEqual([RFC8414_ROOT]);
    });
  });
});
