import { protectedResourceMetadataUrls, resourceUriProblems } from './protected-resource.metadata';

describe('protected resource metadata (RFC 9728)', () => {
  it('places the metadata between the host and the resource path, and at the root', () => {
    expect(protectedResourceMetadataUrls('https://mcp.example.com/mcp')).toEqual({
      pathForm: 'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
      rootForm: 'https://mcp.example.com/.well-known/oauth-protected-resource',
    });
    expect(protectedResourceMetadataUrls('http://127.0.0.1:8080/tenant/a/mcp/').pathForm).toBe(
      'http://127.0.0.1:8080/.well-known/oauth-protected-resource/tenant/a/mcp',
    );
    const bare = protectedResourceMetadataUrls('https://mcp.example.com');
    expect(bare.pathForm).toBe(bare.rootForm);
  });

  it('accepts a canonical resource URI: https, or http on a loopback host', () => {
    for (const uri of [
      'https://mcp.example.com/mcp',
      'http://localhost:3000/mcp',
      'http://127.0.0.1/mcp',
      'http://[::1]:9/mcp',
    ])
      expect(resourceUriProblems(uri)).toEqual([]);
  });

  it.each([
    ['mcp.example.com/mcp', /absolute/],
    ['http://mcp.example.com/mcp', /https/],
    ['https://mcp.example.com/mcp#x', /fragment/],
    ['https://mcp.example.com/mcp?tenant=a', /query/],
    ['https://user:pw@mcp.example.com/mcp', /credentials/],
  ])('names what is wrong with %s', (uri, problem) => {
    expect(resourceUriProblems(uri).join('; ')).toMatch(problem);
  });
});
