import http from 'node:http';
import { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { ErrorCode, JsonRpcRequest, headerParamsOf } from '@conduit-mcp/core';
import { EnvelopeSource, ModernEnvelope } from '../libs/client/src/connection/modern-envelope';
import { checkModernHeaders } from '../libs/server/src/eras/modern/modern-headers.check';

const REVISION = '2026-07-28';
const SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    count: { type: 'integer', 'x-mcp-header': 'Count' },
    dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
    where: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
  },
};
const HEADER_PARAMS = headerParamsOf(SCHEMA);

const source: EnvelopeSource = {
  era: () => 'modern',
  revision: () => REVISION,
  capabilities: () => ({}),
  clientInfo: () => ({ name: 'property', version: '1' }),
  logLevel: () => undefined,
};

// Text of every kind, lone surrogates included: a header carries UTF-8, where one can only travel as U+FFFD, and the
// server takes that for the body's value.
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: fc.constantFrom(' ', '\t', '\r\n', '\0', 'a', 'é', '😀', '=?base64?', '?='), maxLength: 8 }),
  fc.string({
    unit: fc.oneof(
      fc.constantFrom('a', '😀'),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    ),
    maxLength: 6,
  }),
);
const call = fc.record({
  name: text,
  arguments: fc.record(
    {
      region: text,
      count: fc.oneof(fc.integer(), fc.maxSafeInteger()),
      dry: fc.boolean(),
      where: fc.record({ zone: text }, { requiredKeys: [] }),
    },
    { requiredKeys: [] },
  ),
});

/** A server that runs the modern-era header check on what a real HTTP request delivered: the header and the body. */
function startChecker(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      let answer: { ok: true } | { code: number; message: string };
      try {
        checkModernHeaders(JSON.parse(body) as JsonRpcRequest, REVISION, req.headers, HEADER_PARAMS);
        answer = { ok: true };
      } catch (error) {
        const { code, message } = error as { code: number; message: string };
        answer = { code, message };
      }
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(answer));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    ),
  );
}

function post(port: number, headers: Record<string, string>, body: object): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        agent: false,
        headers: { 'content-type': 'application/json', 'MCP-Protocol-Version': REVISION, ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve(JSON.parse(text) as Record<string, unknown>));
      },
    );
    req.setTimeout(5_000, () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('modern-era headers: what the client mirrors, the server accepts (properties, real HTTP)', () => {
  let checker: { port: number; close: () => Promise<void> };
  const envelope = new ModernEnvelope(source);

  beforeAll(async () => {
    expect(envelope.learnTool({ name: 'any', inputSchema: SCHEMA })).toBe(true);
    checker = await startChecker();
  });

  afterAll(() => checker.close());

  it('accepts the Mcp-Name and Mcp-Param-* headers the client built, for any argument values', async () => {
    await fc.assert(
      fc.asyncProperty(call, async (params) => {
        envelope.learnTool({ name: params.name, inputSchema: SCHEMA });
        const headers = envelope.headers('tools/call', params) as Record<string, string>;
        const answer = await post(checker.port, headers, { jsonrpc: '2.0', id: 1, method: 'tools/call', params });
        expect(answer).toEqual({ ok: true });
      }),
      { numRuns: 60 },
    );
  });

  it('refuses with -32020 a body whose mirrored string argument differs from its header', async () => {
    await fc.assert(
      fc.asyncProperty(call, text, async (params, other) => {
        const region = params.arguments.region;
        // Compared as they travel: in UTF-8 every lone surrogate becomes U+FFFD, so '\ud800' and '\ud801' differ
        // as strings and arrive the same.
        fc.pre(region !== undefined && !Buffer.from(other, 'utf8').equals(Buffer.from(region, 'utf8')));
        envelope.learnTool({ name: params.name, inputSchema: SCHEMA });
        const headers = envelope.headers('tools/call', params) as Record<string, string>;
        const changed = { ...params, arguments: { ...params.arguments, region: other } };
        const answer = await post(checker.port, headers, {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: changed,
        });
        expect(answer).toMatchObject({ code: ErrorCode.HeaderMismatch, message: expect.stringMatching(/Region/) });
      }),
      { numRuns: 40 },
    );
  });

  it('accepts the Mcp-Name of any resource URI or prompt name', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('resources/read', 'prompts/get'), text, async (method, name) => {
        const params = method === 'resources/read' ? { uri: name } : { name };
        const headers = envelope.headers(method, params) as Record<string, string>;
        expect(await post(checker.port, headers, { jsonrpc: '2.0', id: 1, method, params })).toEqual({ ok: true });
      }),
      { numRuns: 40 },
    );
  });
});
