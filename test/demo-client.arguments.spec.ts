// The demo client's command line as parsed (no process): the OAuth options, and the client options they become.
import { McpLoopbackRedirect } from '@conduit-mcp/client';
import { CliInvocation, USAGE, UsageError, parseCliArguments } from '../apps/demo-client/src/cli-arguments';
import { CLI_CLIENT_NAME, cliOAuthOptions } from '../apps/demo-client/src/cli-oauth.options';

const URL_ = 'http://127.0.0.1:3000/mcp';
const STDIO = ['--', 'node', 'server.js'];

function parsed(...argv: string[]): CliInvocation {
  const invocation = parseCliArguments(argv);
  if (!invocation) throw new Error('help was printed');
  return invocation;
}

function refusal(...argv: string[]): string {
  try {
    parseCliArguments(argv);
  } catch (error) {
    if (error instanceof UsageError) return error.message;
    throw error;
  }
  throw new Error(`accepted: ${argv.join(' ')}`);
}

describe('demo-client command line: OAuth options', () => {
  it('no OAuth option: the HTTP target has no oauth', () => {
    expect(parsed(URL_, 'tools').target).toEqual({ url: URL_, headers: {} });
  });

  it('--oauth alone asks for OAuth with nothing pre-registered', () => {
    expect(parsed('--oauth', URL_, 'tools').target).toEqual({ url: URL_, headers: {}, oauth: {} });
  });

  it('--client-id, --client-secret and --scope (comma or space separated, repeatable) each imply OAuth', () => {
    expect(parsed(URL_, '--client-id', 'cli-1', 'tools').target).toEqual({
      url: URL_,
      headers: {},
      oauth: { clientId: 'cli-1' },
    });
    expect(parsed(URL_, '--scope', 'notes:read', 'tools').target).toMatchObject({ oauth: { scope: ['notes:read'] } });
    const all = parsed(
      '--client-id',
      'cli-1',
      '--client-secret',
      's3cret',
      '--scope',
      'notes:read,notes:write admin',
      '--scope',
      ' admin, extra ',
      URL_,
      'tools',
    );
    expect(all.target).toEqual({
      url: URL_,
      headers: {},
      oauth: { clientId: 'cli-1', clientSecret: 's3cret', scope: ['notes:read', 'notes:write', 'admin', 'extra'] },
    });
  });

  it('other headers go along with OAuth', () => {
    expect(parsed('--oauth', '--header', 'X-Trace=1', URL_, 'tools').target).toEqual({
      url: URL_,
      headers: { 'X-Trace': '1' },
      oauth: {},
    });
  });

  it.each([
    [['--oauth']],
    [['--client-id', 'cli-1']],
    [['--scope', 'a']],
    [['--client-id', 'cli-1', '--client-secret', 's']],
  ])('refuses %j with a stdio server', (options) => {
    expect(refusal(...options, ...STDIO, 'tools')).toBe(
      '--oauth, --client-id, --client-secret and --scope are for an HTTP server; a stdio server gets none',
    );
  });

  it.each([
    [['--oauth', '--header', 'Authorization=Bearer t-1']],
    [['--client-id', 'cli-1', '--header', 'authorization=Bearer t-1']],
    [['--header', 'AUTHORIZATION=Bearer t-1', '--scope', 'a']],
  ])('refuses %j: a fixed Authorization header and OAuth exclude each other', (options) => {
    const message = refusal(...options, URL_, 'tools');
    expect(message).toMatch(/^--header Authorization=… and --oauth, .* exclude each other/);
    expect(message).not.toContain('t-1');
  });
  it('refuses --client-secret without --client-id, without printing the secret', () => {
    const message = refusal('--client-secret', 'top-secret-1', URL_, 'tools');
    expect(message).toBe('--client-secret needs --client-id');
  });

  it.each([
    [['--scope', ''], '--scope needs at least one scope'],
    [['--scope', ' , '], '--scope needs at least one scope'],
    [['--client-id', ' '], '--client-id needs a value'],
    [['--client-id', 'c', '--client-secret', ''], '--client-secret needs a value'],
  ])('refuses an empty value: %j', (options, message) => {
    expect(refusal(...options, URL_, 'tools')).toBe(message);
  });

  it.each(['--client-id', '--client-secret', '--scope'])('refuses %s at the end, without its value', (option) => {
    expect(refusal(URL_, 'tools', option)).toBe(`${option} needs a value`);
  });

  it('USAGE names the four options', () => {
    for (const option of ['--oauth', '--client-id ID', '--client-secret SECRET', '--scope A,B'])
      expect(USAGE).toContain(option);
  });
});

describe('demo-client command line: the OAuth client options', () => {
  let redirect: McpLoopbackRedirect;

  beforeEach(async () => {
    redirect = await McpLoopbackRedirect.open();
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await redirect.close();
  });

  it('the redirect URI is the listener, the client name conduit-demo-client, the command line’s values', () => {
    const options = cliOAuthOptions(
      URL_,
      { clientId: 'cli-1', clientSecret: 's3cret', scope: ['notes:read'] },
      redirect,
    );
    expect(options).toEqual({
      redirectUri: redirect.redirectUri,
      onAuthorizationUrl: expect.any(Function),
      clientName: CLI_CLIENT_NAME,
      clientId: 'cli-1',
      clientSecret: 's3cret',
      scope: ['notes:read'],
      allowInsecureLoopback: true,
    });
    expect(CLI_CLIENT_NAME).toBe('conduit-demo-client');
    expect(cliOAuthOptions(URL_, {}, redirect)).toEqual({
      redirectUri: redirect.redirectUri,
      onAuthorizationUrl: expect.any(Function),
      clientName: CLI_CLIENT_NAME,
      allowInsecureLoopback: true,
    });
  });

  it.each([
    ['http://localhost:3000/mcp', true],
    ['http://127.0.0.1:3000/mcp', true],
    ['http://[::1]:3000/mcp', true],
    ['https://mcp.example.com/mcp', false],
    ['http://notes.internal.example/mcp', false],
    ['http://127.0.0.2:3000/mcp', false],
    ['http://localhost.example.com/mcp', false],
  ])('%s: allowInsecureLoopback %s', (url, loopback) => {
    const options = cliOAuthOptions(url, {}, redirect);
    expect('allowInsecureLoopback' in options).toBe(loopback);
    if (loopback) expect(options.allowInsecureLoopback).toBe(true);
  });

  it('onAuthorizationUrl prints the URL on stderr and resolves with the browser’s redirect', async () => {
    const written: string[] = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    const { onAuthorizationUrl } = cliOAuthOptions(URL_, {}, redirect);
    const authorization = new URL('https://as.example.com/authorize?client_id=c&state=st-9');
    const answer = onAuthorizationUrl!(authorization);
    await new Promise((resolve) => setImmediate(resolve));
    expect(written).toEqual([`Open this URL to authorize: ${authorization.href}\n`]);
    const browser = await fetch(`${redirect.redirectUri}?code=c-9&state=st-9`);
    expect(browser.status).toBe(200);
    expect(String(await answer)).toBe(`${redirect.redirectUri}?code=c-9&state=st-9`);
  });
});
