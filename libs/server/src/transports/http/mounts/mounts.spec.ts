import express from 'express';
import { IncomingMessage, ServerResponse } from 'node:http';
import { mountOnExpress } from './express.mount';
import { chooseMount } from './mount.choice';
import { mountOnHttpServer } from './server.mount';
import { TestServer, request, startServer } from '../http-test.fixtures-spec';

const answer = (text: string) => (_req: IncomingMessage, res: ServerResponse) => res.end(text);
const routeFor = (path: string, text: string) => (req: IncomingMessage, res: ServerResponse) => {
  if (req.url?.split('?')[0] !== path) return false;
  res.end(text);
  return true;
};

describe('mountOnHttpServer', () => {
  let server: TestServer;
  const original = jest.fn(answer('fallback'));

  beforeEach(async () => {
    original.mockClear();
    server = await startServer(original);
  });

  afterEach(() => server.close());

  it('serves the routed paths and lets everything else fall through', async () => {
    mountOnHttpServer(server.server, routeFor('/mcp', 'mcp'));
    expect((await request(server.port, { method: 'GET', path: '/mcp?x=1' })).text).toBe('mcp');
    expect((await request(server.port, { method: 'GET', path: '/mcp/other' })).text).toBe('fallback');
    expect((await request(server.port, { method: 'GET', path: '/' })).text).toBe('fallback');
    expect(original).toHaveBeenCalledTimes(2);
  });

  it('takes several mounts, and unmounting restores the original listeners', async () => {
    const unmountA = mountOnHttpServer(server.server, routeFor('/a', 'A'));
    const unmountB = mountOnHttpServer(server.server, routeFor('/b', 'B'));
    expect(server.server.listenerCount('request')).toBe(1);
    expect((await request(server.port, { method: 'GET', path: '/a' })).text).toBe('A');
    expect((await request(server.port, { method: 'GET', path: '/b' })).text).toBe('B');

    unmountA();
    unmountA();
    expect((await request(server.port, { method: 'GET', path: '/a' })).text).toBe('fallback');
    expect((await request(server.port, { method: 'GET', path: '/b' })).text).toBe('B');

    unmountB();
    expect(server.server.listeners('request')).toEqual([original]);
    expect((await request(server.port, { method: 'GET', path: '/b' })).text).toBe('fallback');
  });

  it('answers 500 when a route throws, without crashing', async () => {
    mountOnHttpServer(server.server, () => {
      throw new Error('boom');
    });
    const res = await request(server.port, { method: 'GET', path: '/' });
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('boom');
  });
});

describe('mountOnExpress', () => {
  let server: TestServer;

  afterEach(() => server.close());

  it('registers the paths as Express routes, passing a body the app already parsed', async () => {
    const app = express();
    app.use(express.json());
    const seen: unknown[] = [];
    mountOnExpress(app, ['/mcp', '/sse', '/mcp'], (req, res, parsedBody) => {
      seen.push([req.method, req.url, parsedBody]);
      res.end('served');
    });
    app.use((_req, res) => res.status(404).end('express'));
    server = await startServer(app);

    const body = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect(
      (await request(server.port, { path: '/mcp', body, headers: { 'content-type': 'application/json' } })).text,
    ).toBe('served');
    expect((await request(server.port, { method: 'GET', path: '/sse' })).text).toBe('served');
    expect((await request(server.port, { method: 'GET', path: '/other' })).text).toBe('express');
    expect(seen).toEqual([
      ['POST', '/mcp', body],
      ['GET', '/sse', undefined],
    ]);
  });

  it('leaves an unparsed body to the handler', async () => {
    const app = express();
    let parsed: unknown = 'unset';
    mountOnExpress(app, ['/mcp'], (_req, res, parsedBody) => {
      parsed = parsedBody;
      res.end();
    });
    server = await startServer(app);
    await request(server.port, { path: '/mcp', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
    expect(parsed).toBeUndefined();
  });
});

describe('chooseMount', () => {
  it('defaults to the server mount, on any adapter', () => {
    expect(chooseMount(undefined, 'express', 'a')).toBe('server');
    expect(chooseMount(undefined, 'fastify', 'a')).toBe('server');
  });

  it('takes a framework mount that fits the adapter', () => {
    expect(chooseMount('express', 'express', 'a')).toBe('express');
    expect(chooseMount('fastify', 'fastify', 'a')).toBe('fastify');
  });

  it('refuses a framework mount on another framework, naming the server and the fitting mount', () => {
    expect(() => chooseMount('express', 'fastify', 'weather')).toThrow(
      `MCP server "weather": http.mount 'express' needs the Express adapter, but the app runs on fastify: use mount 'fastify' or leave it out`,
    );
    expect(() => chooseMount('fastify', 'express', 'weather')).toThrow(/needs the Fastify adapter/);
  });
});
