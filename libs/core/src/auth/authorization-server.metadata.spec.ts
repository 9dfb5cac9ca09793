import { authorizationServerMetadataUrls } from './authorization-server.metadata';

describe('authorizationServerMetadataUrls', () => {
  it('an issuer without a path: RFC 8414 then OpenID Connect, at the root', () => {
    for (const issuer of ['https://auth.example.com', 'https://auth.example.com/']) {
      expect(authorizationServerMetadataUrls(issuer)).toEqual([
        'https://auth.example.com/.well-known/oauth-authorization-server',
        'https://auth.example.com/.well-known/openid-configuration',
      ]);
    }
  });

  it('an issuer with a path: RFC 8414 inserted, OpenID Connect inserted, OpenID Connect appended', () => {
    expect(authorizationServerMetadataUrls('http://localhost:3000/tenant1/')).toEqual([
      'http://localhost:3000/.well-known/oauth-authorization-server/tenant1',
      'http://localhost:3000/.well-known/openid-configuration/tenant1',
      'http://localhost:3000/tenant1/.well-known/openid-configuration',
    ]);
  });
});
