import { INestApplication } from '@nestjs/common';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { startDemoServer, RunningServer } from './support/demo-server';
import { waitFor } from './support/interop.scenarios';
import { ElicitAnswer, connectModernHttp } from './support/modern-client';
import { modernScenarios } from './support/modern.scenarios';
import { abortedCalls, roundsModule } from './support/rounds-fixture';
import { answeringClient } from './support/sdk-client';
import { WireSchema } from './support/wire-schema';
import { HTTP_ADAPTERS, createHttpApp } from './support/http-adapters';

const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-fetch', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface HandlerEvent {
  name: string;
  status: string;
}

function textOf(result: object): string {
  const [first] = ((result as { content?: unknown }).content ?? []) as Array<{ type: string; text?: string }>;
  return first?.type === 'text' ? (first.text ?? '') : '';
}

describe.each(HTTP_ADAPTERS)(
  'Streamable HTTP, modern era (2026-07-28), with the official SDK 2.x client (%s)',
  (adapter) => {
    let server: RunningServer;
    let rounds: INestApplication;
    let roundsUrl: string;
    const toolEvents: HandlerEvent[] = [];
    const onToolEvent = (event: unknown) => void toolEvents.push(event as HandlerEvent);

    beforeAll(async () => {
      subscribe('conduit-mcp:tool', onToolEvent);
      server = await startDemoServer({}, adapter);
      rounds = await createHttpApp(roundsModule({ path: '/mcp' }), adapter);
      await rounds.listen(0, '127.0.0.1');
      roundsUrl = `http://127.0.0.1:${(rounds.getHttpServer().address() as { port: number }).port}/mcp`;
    });

    afterAll(async () => {
      unsubscribe('conduit-mcp:tool', onToolEvent);
      await server?.close();
      await rounds?.close();
    });

    modernScenarios({
      transport: 'http',
      connect: (options) => connectModernHttp(server.url, options),
      connectRounds: (options) => connectModernHttp(roundsUrl, options),
      handlerCancelled: (tool) =>
        waitFor(() => toolEvents.some((event) => event.name === tool && event.status === 'cancelled')),
      handlerAborted: (_rounds, requestId) => waitFor(() => abortedCalls.ids.includes(requestId as string | number)),
    });

    describe('both eras on one endpoint', () => {
      it('serves a 1.x client in a legacy session and a 2.x client statelessly at the same time', async () => {
        const legacy = answeringClient();
        const legacyTransport = new StreamableHTTPClientTransport(new URL(server.url));
        await legacy.client.connect(legacy.recorder.tap(legacyTransport));
        const modern = await connectModernHttp(server.url);
        try {
          expect(legacy.recorder.revision).toBe('2025-11-25');
          expect(legacyTransport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
          expect(modern.client.getProtocolEra()).toBe('modern');

          const [legacySummary, modernSummary, legacyList, modernList] = await Promise.all([
            legacy.client.callTool({ name: 'summarize_forecast', arguments: { city: 'Oslo' } }),
            modern.client.callTool({ name: 'summarize_forecast', arguments: { city: 'Oslo' } }),
            legacy.client.listTools(),
            modern.client.listTools(),
          ]);
          expect(textOf(legacySummary)).toBe('Mild and dry. (model: test-model)');
          expect(textOf(modernSummary)).toBe('Mild and dry. (model: test-model)');
          expect(legacyList.tools.map((tool) => tool.name).sort()).toEqual(
            modernList.tools.map((tool) => tool.name).sort(),
          );
          // Legacy: a server-to-client request on the call's stream. Modern: an input_required result and a retry.
          expect(legacy.samplings).toEqual([expect.objectContaining({ maxTokens: 200 })]);
          expect(legacy.recorder.received.filter((r) => r.message.method === 'sampling/createMessage')).toHaveLength(1);
          expect(modern.samplings).toEqual([{ key: 'summary', params: expect.objectContaining({ maxTokens: 200 }) }]);
          expect(modern.recorder.requestsSent('tools/call')).toHaveLength(2);

          // A change made through one era is seen by the other.
          const added = await modern.client.callTool({
            name: 'add_note',
            arguments: { title: 'Shared', body: 'both eras' },
          });
          const uri = (added.content as Array<{ uri: string }>)[0].uri;
          const read = await legacy.client.readResource({ uri });
          expect(read.contents[0]).toMatchObject({ text: expect.stringContaining('# Shared') });
        } finally {
          await legacyTransport.terminateSession();
          await legacy.client.close();
          await modern.close();
        }
        expect(legacy.recorder.problems()).toEqual([]);
        expect(modern.recorder.serverRequests()).toEqual([]);
        expect(modern.recorder.problems()).toEqual([]);
      });

      it('runs the same two-round handler for a 1.x client, asking through server-to-client requests', async () => {
        const legacy = answeringClient();
        await legacy.client.connect(legacy.recorder.tap(new StreamableHTTPClientTransport(new URL(roundsUrl))));
        try {
          let asked = 0;
          legacy.client.setRequestHandler(ElicitRequestSchema, async (request) => {
            legacy.elicitations.push(request.params);
            return asked++ === 0
              ? { action: 'accept', content: { city: 'Prague' } }
              : { action: 'accept', content: { confirm: true } };
          });
          const result = await legacy.client.callTool({ name: 'plan_trip', arguments: { traveller: 'Ada' } });
          expect(textOf(result)).toMatch(/^Booked Prague for Ada, ref \w+\.$/);
          expect(legacy.elicitations).toEqual([
            expect.objectContaining({ message: 'Where does Ada want to go?' }),
            expect.objectContaining({ message: expect.stringMatching(/^Book Prague for Ada \(ref \w+\)\?$/) }),
          ]);
        } finally {
          await legacy.client.close();
        }
        expect(legacy.recorder.problems()).toEqual([]);
      });
    });

    describe('one-era servers', () => {
      async function serve(eras: Array<'legacy' | 'modern'>): Promise<{ url: string; close(): Promise<void> }> {
        const app = await createHttpApp(roundsModule({ path: '/mcp' }, eras), adapter);
        await app.listen(0, '127.0.0.1');
        return {
          url: `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`,
          close: () => app.close(),
        };
      }

      it('a 2.x client in auto negotiation falls back to initialize on a legacy-only server; its handlers answer server requests', async () => {
        const legacyOnly = await serve(['legacy']);
        try {
          const auto = await connectModernHttp(legacyOnly.url, { negotiation: 'auto' });
          try {
            expect(auto.client.getProtocolEra()).toBe('legacy');
            expect(auto.recorder.revision).toBe('2025-11-25');
            auto.elicitAnswer = (question): ElicitAnswer =>
              String(question.params.message).startsWith('Where')
                ? { action: 'accept', content: { city: 'Rome' } }
                : { action: 'accept', content: { confirm: true } };
            const result = await auto.client.callTool({ name: 'plan_trip', arguments: { traveller: 'Ada' } });
            expect(textOf(result)).toMatch(/^Booked Rome for Ada, ref \w+\.$/);
            expect(auto.recorder.serverRequests().map((request) => request.method)).toEqual([
              'elicitation/create',
              'elicitation/create',
            ]);
          } finally {
            await auto.close();
          }
          expect(auto.recorder.received.filter((r) => r.revision !== '2026-07-28').length).toBeGreaterThan(0);
          expect(auto.recorder.problems()).toEqual([]);
          // Pinned, there is no fallback: the server's -32022 (supported: legacy revisions only) ends the connect.
          await expect(connectModernHttp(legacyOnly.url)).rejects.toThrow(/Unsupported protocol version|2026-07-28/);
        } finally {
          await legacyOnly.close();
        }
      });

      it('a modern-only server refuses initialize, and serves the 2.x client', async () => {
        const modernOnly = await serve(['modern']);
        try {
          const legacy = answeringClient();
          await expect(
            legacy.client.connect(new StreamableHTTPClientTransport(new URL(modernOnly.url))),
          ).rejects.toThrow();
          await legacy.client.close();
          const auto = await connectModernHttp(modernOnly.url, { negotiation: 'auto' });
          try {
            expect(auto.client.getProtocolEra()).toBe('modern');
            expect((await auto.client.discover()).supportedVersions).toEqual([MODERN]);
          } finally {
            await auto.close();
          }
          expect(auto.recorder.problems()).toEqual([]);
        } finally {
          await modernOnly.close();
        }
      });
    });

    describe('subscriptions/listen when the server shuts down', () => {
      it('ends the subscription gracefully with a subscriptions/listen result', async () => {
        const own = await startDemoServer({}, adapter);
        const peer = await connectModernHttp(own.url);
        try {
          const subscription = await peer.client.listen({ resourceSubscriptions: ['notes://index'] });
          const closing = own.close();
          let timer: NodeJS.Timeout | undefined;
          const outcome = await Promise.race([
            subscription.closed,
            new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), 5_000))),
          ]);
          clearTimeout(timer);
          expect(outcome).toBe('graceful');
          await closing;
          const [listen] = peer.recorder.requestsSent('subscriptions/listen');
          expect(peer.recorder.responseTo(listen.id)).toMatchObject({
            result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': listen.id } },
          });
        } finally {
          await peer.close();
          await own.close().catch(() => undefined);
        }
        expect(peer.recorder.problems()).toEqual([]);
      });
    });

    describe('x-mcp-header arguments mirrored into Mcp-Param-* headers', () => {
      it('is sent by the 2.x client and checked by the server', async () => {
        const peer = await connectModernHttp(roundsUrl);
        try {
          // Without the tool definition the client sends no Mcp-Param-Region; the server refuses (-32020), the client
          // re-lists the tools and retries with the header.
          const first = await peer.client.callTool({
            name: 'regional_weather',
            arguments: { city: 'Oslo', region: 'Østlandet' },
          });
          expect(textOf(first)).toBe('Sunny in Oslo (Østlandet).');
          const second = await peer.client.callTool({ name: 'regional_weather', arguments: { city: 'Bergen' } });
          expect(textOf(second)).toBe('Sunny in Bergen (no region).');
        } finally {
          await peer.close();
        }
        expect(peer.recorder.problems()).toEqual([]);
      });

      it('refuses a missing, mismatching or unexpected Mcp-Param header with -32020 and HTTP 400, and decodes base64', async () => {
        const call = (args: Record<string, unknown>, headers: Record<string, string>) =>
          fetch(roundsUrl, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              'mcp-protocol-version': MODERN,
              'mcp-method': 'tools/call',
              'mcp-name': 'regional_weather',
              ...headers,
            },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'tools/call',
              params: { _meta: META, name: 'regional_weather', arguments: args },
            }),
          }).then(async (response) => ({ status: response.status, json: JSON.parse(await response.text()) }));
        const schema = WireSchema.for(MODERN);
        const cases: Array<[Record<string, unknown>, Record<string, string>, number]> = [
          [{ city: 'Oslo', region: 'north' }, {}, 400],
          [{ city: 'Oslo', region: 'north' }, { 'mcp-param-region': 'south' }, 400],
          [{ city: 'Oslo' }, { 'mcp-param-region': 'north' }, 400],
          [{ city: 'Oslo', region: 'north' }, { 'mcp-param-region': 'north' }, 200],
          [
            { city: 'Oslo', region: ' padded ' },
            { 'mcp-param-region': `=?base64?${Buffer.from(' padded ').toString('base64')}?=` },
            200,
          ],
          [{ city: 'Oslo' }, {}, 200],
        ];
        for (const [args, headers, status] of cases) {
          const response = await call(args, headers);
          expect(schema.check(response.json, 'tools/call')).toEqual([]);
          expect({ args, headers, status: response.status }).toEqual({ args, headers, status });
          if (status === 400) expect(response.json).toMatchObject({ error: { code: -32020 } });
          else expect(response.json.result).toMatchObject({ resultType: 'complete' });
        }
      });
    });

    describe('the HTTP envelope of a modern request (raw fetch)', () => {
      const schema = WireSchema.for(MODERN);

      async function post(body: Record<string, unknown>, headers: Record<string, string> = {}) {
        const method = String(body.method);
        const response = await fetch(server.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            'mcp-method': method,
            ...headers,
          },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        const json = (response.headers.get('content-type') ?? '').includes('text/event-stream')
          ? JSON.parse(
              text
                .split('\n')
                .filter((line) => line.startsWith('data:'))
                .at(-1)!
                .slice(5),
            )
          : JSON.parse(text);
        expect(schema.check(json, method)).toEqual([]);
        return { status: response.status, headers: response.headers, json };
      }

      it('streams request-scoped notifications before the result, with no SSE event ids (no resumption in 2026-07-28)', async () => {
        const response = await fetch(server.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            'mcp-method': 'tools/call',
            'mcp-name': 'weather_report',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 'r1',
            method: 'tools/call',
            params: { _meta: { ...META, progressToken: 'p1' }, name: 'weather_report', arguments: { steps: 2 } },
          }),
        });
        expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
        expect(response.headers.get('mcp-session-id')).toBeNull();
        const lines = (await response.text()).split('\n');
        expect(lines.filter((line) => line.startsWith('id:'))).toEqual([]);
        const messages = lines.filter((line) => line.startsWith('data:')).map((line) => JSON.parse(line.slice(5)));
        expect(messages.map((m) => m.method ?? m.id)).toEqual([
          'notifications/progress',
          'notifications/progress',
          'r1',
        ]);
        for (const message of messages) expect(schema.check(message, 'tools/call')).toEqual([]);
      });

      it('answers server/discover with no session id', async () => {
        const { status, headers, json } = await post({
          jsonrpc: '2.0',
          id: 1,
          method: 'server/discover',
          params: { _meta: META },
        });
        expect(status).toBe(200);
        expect(headers.get('mcp-session-id')).toBeNull();
        expect(json.result).toMatchObject({
          resultType: 'complete',
          supportedVersions: expect.arrayContaining([MODERN]),
        });
      });

      it('refuses a request whose _meta is missing or incomplete with -32602 and HTTP 400', async () => {
        const bare = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
        expect(bare.status).toBe(400);
        expect(bare.json).toMatchObject({ id: 2, error: { code: -32602 } });
        const noCapabilities = await post({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/list',
          params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } },
        });
        expect(noCapabilities.status).toBe(400);
        expect(noCapabilities.json).toMatchObject({ id: 3, error: { code: -32602 } });
      });

      it('refuses an unsupported version with -32022 and HTTP 400, listing the supported ones', async () => {
        const { status, json } = await post(
          {
            jsonrpc: '2.0',
            id: 4,
            method: 'tools/list',
            params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } },
          },
          { 'mcp-protocol-version': '1900-01-01' },
        );
        expect(status).toBe(400);
        expect(json).toMatchObject({
          id: 4,
          error: {
            code: -32022,
            data: { requested: '1900-01-01', supported: expect.arrayContaining([MODERN, '2025-11-25']) },
          },
        });
      });

      it('refuses server/discover itself at an unsupported version with -32022 (the stdio probe relies on it)', async () => {
        const { status, json } = await post(
          {
            jsonrpc: '2.0',
            id: 41,
            method: 'server/discover',
            params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '1900-01-01' } },
          },
          { 'mcp-protocol-version': '1900-01-01' },
        );
        expect(status).toBe(400);
        expect(json).toMatchObject({ id: 41, error: { code: -32022, data: { requested: '1900-01-01' } } });
      });

      it.each(['no/such/method', 'ping', 'logging/setLevel', 'resources/subscribe'])(
        'answers %s (unknown, or removed in 2026-07-28) with -32601 and HTTP 404',
        async (method) => {
          const { status, json } = await post({
            jsonrpc: '2.0',
            id: 5,
            method,
            params: { _meta: META, level: 'info', uri: 'notes://index' },
          });
          expect(status).toBe(404);
          expect(json).toMatchObject({ id: 5, error: { code: -32601 } });
        },
      );

      it('refuses headers that do not match the body with -32020 and HTTP 400', async () => {
        const call = {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { _meta: META, name: 'forecast', arguments: { city: 'Oslo' } },
        };
        const wrongMethod = await post(call, { 'mcp-method': 'tools/list', 'mcp-name': 'forecast' });
        expect(wrongMethod.status).toBe(400);
        expect(wrongMethod.json).toMatchObject({ error: { code: -32020 } });
        const wrongName = await post(call, { 'mcp-name': 'reset_notes' });
        expect(wrongName.status).toBe(400);
        expect(wrongName.json).toMatchObject({ error: { code: -32020 } });
        const noName = await post(call);
        expect(noName.status).toBe(400);
        expect(noName.json).toMatchObject({ error: { code: -32020 } });
        const noMethod = await post(call, { 'mcp-method': '', 'mcp-name': 'forecast' });
        expect(noMethod.status).toBe(400);
        expect(noMethod.json).toMatchObject({ error: { code: -32020 } });
        const otherVersion = await post(call, { 'mcp-protocol-version': '2025-11-25', 'mcp-name': 'forecast' });
        expect(otherVersion.status).toBe(400);
        expect(otherVersion.json).toMatchObject({ error: { code: -32020 } });
        const right = await post(call, { 'mcp-name': 'forecast' });
        expect(right.status).toBe(200);
        expect(right.json.result).toMatchObject({ resultType: 'complete', structuredContent: { city: 'Oslo' } });
        const encoded = await post(call, { 'mcp-name': `=?base64?${Buffer.from('forecast').toString('base64')}?=` });
        expect(encoded.status).toBe(200);
        expect(encoded.json.result).toMatchObject({ resultType: 'complete' });
      });

      it('ignores an Mcp-Session-Id header on a modern request, and mints none', async () => {
        const { status, headers, json } = await post(
          { jsonrpc: '2.0', id: 8, method: 'tools/list', params: { _meta: META } },
          { 'mcp-session-id': '00000000-0000-0000-0000-000000000000' },
        );
        expect(status).toBe(200);
        expect(headers.get('mcp-session-id')).toBeNull();
        expect(json.result).toMatchObject({ resultType: 'complete', tools: expect.any(Array) });
      });

      /** Sends a raw body; an error body must be a valid 2026-07-28 error response (its `id` a string or number, or absent). */
      async function refusal(body: string, headers: Record<string, string>) {
        const response = await fetch(server.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': MODERN,
            ...headers,
          },
          body,
        });
        const text = await response.text();
        const json = text ? JSON.parse(text) : undefined;
        if (json !== undefined) expect(schema.check(json)).toEqual([]);
        return { status: response.status, json };
      }

      it('refuses a body that is not JSON with -32700 and HTTP 400, in a 2026-07-28 error envelope', async () => {
        const { status, json } = await refusal('{"jsonrpc":"2.0","id":9,', { 'mcp-method': 'tools/list' });
        expect(status).toBe(400);
        expect(json).toMatchObject({ error: { code: -32700 } });
      });

      it('refuses a JSON-RPC batch carrying a modern request with HTTP 400 (one message per POST in 2026-07-28)', async () => {
        const request = { jsonrpc: '2.0', id: 12, method: 'tools/list', params: { _meta: META } };
        const { status, json } = await refusal(JSON.stringify([request]), { 'mcp-method': 'tools/list' });
        expect(status).toBe(400);
        expect(Array.isArray(json)).toBe(false);
        expect(json).toMatchObject({ error: { code: -32600 } });
      });

      it('refuses an Accept header without text/event-stream with 406, in a 2026-07-28 error envelope', async () => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/list', params: { _meta: META } });
        const { status } = await refusal(body, { accept: 'application/json', 'mcp-method': 'tools/list' });
        expect(status).toBe(406);
      });

      it('refuses a foreign Origin with 403, in a 2026-07-28 error envelope', async () => {
        const body = JSON.stringify({ jsonrpc: '2.0', id: 11, method: 'tools/list', params: { _meta: META } });
        const { status } = await refusal(body, { origin: 'http://evil.example', 'mcp-method': 'tools/list' });
        expect(status).toBe(403);
      });

      it.each(['GET', 'DELETE'])('answers %s with MCP-Protocol-Version 2026-07-28 with 405', async (method) => {
        const response = await fetch(server.url, {
          method,
          headers: { accept: 'text/event-stream', 'mcp-protocol-version': MODERN },
        });
        await response.arrayBuffer();
        expect(response.status).toBe(405);
        expect(response.headers.get('allow') ?? '').toMatch(/POST/);
      });
    });
  },
);
