import { loadOAuth4WebApi } from './oauth4webapi.loader';

describe('loadOAuth4WebApi', () => {
  it('loads oauth4webapi (ES modules only) under CommonJS', async () => {
    const oauth = loadOAuth4WebApi();
    const verifier = oauth.generateRandomCodeVerifier();
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await oauth.calculatePKCECodeChallenge(verifier)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
