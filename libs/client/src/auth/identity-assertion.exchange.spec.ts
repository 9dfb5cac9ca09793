import { Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';
import { identityAssertion } from './identity-assertion.exchange';
import { OAuthExchange } from './oauth.exchange';

describe('identityAssertion (enterprise-managed authorization, RFC 8693 token exchange)', () => {
  let server: Server;
  let tokenEndpoint: string;
  let answer: { status: number; body: Record<string, unknown> };
  const seen: Array<{ form: URLSearchParams; authorization?: string }> = [];
  const exchange = new OAuthExchange({ allowInsecureLoopback: true });
  const as = { issuer: 'https://as.example.com', token_endpoint: 'https://as.example.com/token' };
  const target = { as, resource: 'https://mcp.example.com/mcp', scope: ['notes:read'] };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push({ form: new URLSearchParams(body), authorization: req.headers.authorization });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    tokenEndpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    seen.length = 0;
    answer = {
      status: 200,
      body: {
        access_token: 'the-id-jag',
        issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
        token_type: 'N_A',
      },
    };
  });

  it('asks the identity provider for an ID-JAG naming the authorization server and the resource', async () => {
    const assertion = await identityAssertion(exchange, target, {
      tokenEndpoint,
      clientId: 'idp-client',
      subjectToken: () => 'the-id-token',
    });
    expect(assertion).toBe('the-id-jag');
    expect(Object.fromEntries(seen[0].form)).toEqual({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      audience: 'https://as.example.com',
      resource: 'https://mcp.example.com/mcp',
      subject_token: 'the-id-token',
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      scope: 'notes:read',
      client_id: 'idp-client',
    });
    expect(seen[0].authorization).toBeUndefined();
  });

  it('authenticates with client_secret_basic when given a secret, and takes a refresh token as the subject', async () => {
    await identityAssertion(exchange, target, {
      tokenEndpoint,
      clientId: 'idp-client',
      clientSecret: 's3cret',
      subjectToken: 'the-refresh-token',
      subjectTokenType: 'refresh_token',
    });
    expect(seen[0].authorization).toBe(`Basic ${Buffer.from('idp-client:s3cret').toString('base64')}`);
    expect(seen[0].form.get('subject_token_type')).toBe('urn:ietf:params:oauth:token-type:refresh_token');
    expect(seen[0].form.get('client_id')).toBeNull();
  });

  it('refuses an answer that is not an identity assertion grant, and names an identity provider refusal', async () => {
    answer.body.issued_token_type = 'urn:ietf:params:oauth:token-type:access_token';
    await expect(
      identityAssertion(exchange, target, { tokenEndpoint, clientId: 'c', subjectToken: 't' }),
    ).rejects.toThrow(/issued a urn:ietf:params:oauth:token-type:access_token token, not an identity assertion grant/);
    answer = { status: 400, body: { error: 'invalid_grant', error_description: 'ID token expired' } };
    const refusal = identityAssertion(exchange, target, { tokenEndpoint, clientId: 'c', subjectToken: 't' });
    await expect(refusal).rejects.toThrow(McpAuthorizationError);
    await expect(refusal).rejects.toThrow('OAuth token exchange failed: invalid_grant: ID token expired');
  });

  it('refuses a token endpoint that is not an absolute URL, before any request', async () => {
    await expect(
      identityAssertion(exchange, target, { tokenEndpoint: '/token', clientId: 'c', subjectToken: 't' }),
    ).rejects.toThrow('enterprise.tokenEndpoint is not an absolute URL');
    expect(seen).toHaveLength(0);
  });
});
