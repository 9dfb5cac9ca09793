import { request } from 'node:http';
import { Socket, connect, createServer } from 'node:net';
import { McpLoopbackRedirect } from './loopback-redirect.listener';
import { McpAuthorizationError } from '../errors/mcp-authorization.error';

/** A GET (or another method) with the Host header given, which fetch does not let a caller set. */
function rawRequest(url: string, options: { method?: string; host?: string; body?: string } = {}) {
  return new Promise<{ status: number; body: string; headers: Record<string, unknown> }>((resolve, reject) => {
    const target = new URL(url);
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: options.method ?? 'GET',
        headers: { host: options.host ?? target.host },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Whether the promise is still pending after everything queued so far (and one timer turn) has run. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  const raced = await Promise.race([
    promise.then(
      () => 'settled',
      () => 'settled',
    ),
    new Promise((resolve) => setTimeout(() => resolve(marker), 20)),
  ]);
  return raced === marker;
}

describe('McpLoopbackRedirect', () => {
  const opened: McpLoopbackRedirect[] = [];
  const open = async (options?: Parameters<typeof McpLoopbackRedirect.open>[0]) => {
    const redirect = await McpLoopbackRedirect.open(options);
    opened.push(redirect);
    return redirect;
  };

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((redirect) => redirect.close()));
  });

  it('listens on 127.0.0.1 and a free port, at /callback unless told another path', async () => {
    const redirect = await open();
    expect(redirect.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(new URL(redirect.redirectUri).port).not.toBe('0');
    const other = await open({ path: '/oauth/done' });
    expect(other.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/oauth\/done$/);
    await expect(McpLoopbackRedirect.open({ path: 'callback' })).rejects.toThrow(/must start with \//);
    await expect(McpLoopbackRedirect.open({ path: '/callback?x=1' })).rejects.toThrow(/must start with \//);
  });

  it('resolves a wait with the full callback URL and answers the browser with a fixed page', async () => {
    const redirect = await open();
    const wait = redirect.waitForCallback();
    const response = await fetch(`${redirect.redirectUri}?code=c-1&state=s-1&iss=${encodeURIComponent('http://as')}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await response.text()).toContain('Authorization complete; you can close this window.');
    const callback = await wait;
    expect(callback.href).toBe(`${redirect.redirectUri}?code=c-1&state=s-1&iss=http%3A%2F%2Fas`);
  });

  it('writes no query value into its page (no reflected XSS)', async () => {
    const redirect = await open();
    const wait = redirect.waitForCallback();
    const evil = '<script>alert(1)</script>';
    const response = await fetch(`${redirect.redirectUri}?error=${encodeURIComponent(evil)}&state=${evil}`);
    const page = await response.text();
    expect(response.status).toBe(200);
    expect(page).toContain('Authorization not completed');
    expect(page).not.toMatch(/script|alert/);
    expect((await wait).searchParams.get('error')).toBe(evil);
  });

  it('answers 404 to another path, 405 to a POST, 400 without code, error or state: none of them ends the wait', async () => {
    const redirect = await open();
    const wait = redirect.waitForCallback();
    const origin = new URL(redirect.redirectUri).origin;
    const other = await fetch(`${origin}/elsewhere?code=wrong-1&state=s`);
    expect(other.status).toBe(404);
    expect(await other.text()).not.toContain('wrong-1');
    const favicon = await fetch(`${origin}/favicon.ico`);
    expect(favicon.status).toBe(404);
    const posted = await fetch(`${redirect.redirectUri}?code=wrong-2&state=s`, {
      method: 'POST',
      body: 'x'.repeat(1e5),
    });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET');
    const bare = await fetch(`${redirect.redirectUri}?foo=bar`);
    expect(bare.status).toBe(400);
    // Another Host than the redirect URI's is not the browser following the redirect (DNS rebinding).
    const rebound = await rawRequest(`${redirect.redirectUri}?code=wrong-3&state=s`, {
      host: `evil.example:${origin.split(':')[2]}`,
    });
    expect(rebound.status).toBe(404);
    expect(await pending(wait)).toBe(true);
    await fetch(`${redirect.redirectUri}?code=right&state=s`);
    expect((await wait).searchParams.get('code')).toBe('right');
  });

  it('rejects a wait after timeoutMs; a callback nobody waits for gets 400', async () => {
    const redirect = await open({ timeoutMs: 50 });
    const wait = redirect.waitForCallback();
    await expect(wait).rejects.toThrow(McpAuthorizationError);
    await expect(wait).rejects.toThrow(
      /No authorization answer reached http:\/\/127\.0\.0\.1:\d+\/callback within 50 ms/,
    );
    const late = await fetch(`${redirect.redirectUri}?code=late&state=s`);
    expect(late.status).toBe(400);
    expect(await late.text()).toContain('No authorization is waiting');
  });

  it('close() rejects a pending wait, drops open connections and frees the port', async () => {
    const redirect = await open();
    const { port } = new URL(redirect.redirectUri);
    const wait = redirect.waitForCallback();
    // An idle connection (a browser's preconnect) must not hold close() open.
    const idle: Socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => idle.once('connect', resolve));
    const idleClosed = new Promise((resolve) => idle.once('close', resolve));
    await redirect.close();
    await expect(wait).rejects.toThrow(/abandoned: the redirect listener is closed/);
    await idleClosed;
    await expect(redirect.waitForCallback()).rejects.toThrow(McpAuthorizationError);
    await redirect.close();
    // The port is free again: a listener can bind it.
    const again = await open({ port: Number(port) });
    expect(again.redirectUri).toBe(redirect.redirectUri);
    const probe = createServer();
    await expect(
      new Promise((resolve, reject) => probe.once('error', reject).listen(Number(port), '127.0.0.1', () => resolve(0))),
    ).rejects.toThrow(/EADDRINUSE/);
  });

  it('authorization(show): gives redirectUri, calls show with the URL, resolves with the callback', async () => {
    const redirect = await open();
    const shown: URL[] = [];
    const auth = redirect.authorization((url) => {
      shown.push(url);
    });
    expect(auth.redirectUri).toBe(redirect.redirectUri);
    const authorizationUrl = new URL('https://as.example/authorize?state=st-1&client_id=c');
    const answer = auth.onAuthorizationUrl(authorizationUrl);
    await new Promise((resolve) => setImmediate(resolve));
    expect(shown).toEqual([authorizationUrl]);
    await fetch(`${redirect.redirectUri}?code=c-1&state=st-1`);
    expect(String(await answer)).toBe(`${redirect.redirectUri}?code=c-1&state=st-1`);
  });

  it('authorization(show): a callback with another state (an old tab, a forged request) does not end it', async () => {
    const redirect = await open();
    const auth = redirect.authorization(() => undefined);
    const answer = auth.onAuthorizationUrl(new URL('https://as.example/authorize?state=mine'));
    const forged = await fetch(`${redirect.redirectUri}?code=forged&state=theirs`);
    expect(forged.status).toBe(400);
    expect(await pending(answer)).toBe(true);
    await fetch(`${redirect.redirectUri}?code=real&state=mine`);
    expect(new URL(String(await answer)).searchParams.get('code')).toBe('real');
  });

  it('two authorizations in a row (a step-up): each resolves with its own callback', async () => {
    const redirect = await open();
    // Like a browser that follows the redirect at once, before show has even returned.
    const auth = redirect.authorization(async (url) => {
      const response = await fetch(
        `${redirect.redirectUri}?code=code-${url.searchParams.get('state')}&state=${url.searchParams.get('state')}`,
      );
      expect(response.status).toBe(200);
    });
    const first = await auth.onAuthorizationUrl(new URL('https://as.example/authorize?state=one'));
    const second = await auth.onAuthorizationUrl(new URL('https://as.example/authorize?state=two&scope=admin'));
    expect(new URL(String(first)).searchParams.get('code')).toBe('code-one');
    expect(new URL(String(second)).searchParams.get('code')).toBe('code-two');
  });

  it('authorization(show): a show that throws ends the authorization and leaves no wait behind', async () => {
    const redirect = await open();
    const auth = redirect.authorization(() => {
      throw new Error('no browser');
    });
    await expect(auth.onAuthorizationUrl(new URL('https://as.example/authorize?state=s'))).rejects.toThrow(
      'no browser',
    );
    const stray = await fetch(`${redirect.redirectUri}?code=c&state=s`);
    expect(stray.status).toBe(400);
  });

  it('authorization(show): a wait that times out while show still runs rejects once show returns', async () => {
    const redirect = await open({ timeoutMs: 20 });
    const auth = redirect.authorization(() => new Promise<void>((resolve) => setTimeout(resolve, 80)));
    await expect(auth.onAuthorizationUrl(new URL('https://as.example/authorize?state=s'))).rejects.toThrow(
      /within 20 ms/,
    );
  });

  it('authorization(show) after close() rejects without showing anything', async () => {
    const redirect = await open();
    await redirect.close();
    const show = jest.fn();
    await expect(
      redirect.authorization(show).onAuthorizationUrl(new URL('https://as.example/authorize?state=s')),
    ).rejects.toThrow(/closed/);
    expect(show).not.toHaveBeenCalled();
  });
});
