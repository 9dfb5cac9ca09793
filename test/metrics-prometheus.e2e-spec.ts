import { INestApplication, Injectable, Module } from '@nestjs/common';
import { McpCtx, McpModule, McpRequestContext, McpTool, McpToolError } from '@conduit-mcp/server';
import { McpMetricsModule } from '@conduit-mcp/metrics';
import { AddressInfo } from 'node:net';
import { HTTP_ADAPTERS, HttpAdapterName, createHttpApp } from './support/http-adapters';
import {
  LEGACY,
  legacyHeaders,
  legacyPost,
  openGetStream,
  openLegacySession,
  readSse,
  sleep,
  until,
} from './support/legacy-http.client';
import { ExposedSample, parseExposition, samplesNamed, valueOf } from './support/metrics-exposition';
import { MODERN, modernMeta, modernToolCall } from './support/modern-http.client';

const MODERN_META = modernMeta({
  'io.modelcontextprotocol/clientInfo': { name: 'metrics-e2e', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
});
const OPERATION = 'mcp_server_operation_duration_seconds';
const OPERATION_COUNT = `${OPERATION}_count`;
const SESSION_COUNT = 'mcp_server_session_duration_seconds_count';

interface RpcAnswer {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

@Injectable()
class MeteredTools {
  @McpTool({ name: 'ok', description: 'Answers' })
  ok() {
    return 'fine';
  }

  @McpTool({ name: 'fails', description: 'Throws' })
  fails(): string {
    throw new Error('it broke');
  }

  @McpTool({ name: 'refuses', description: 'Answers a tool error' })
  refuses(): string {
    throw new McpToolError('not today');
  }

  /** How many calls of `wait` are waiting now. */
  static waiting = 0;

  @McpTool({ name: 'wait', description: 'Waits until cancelled' })
  async wait(@McpCtx() ctx: McpRequestContext) {
    MeteredTools.waiting++;
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    MeteredTools.waiting--;
    return 'cancelled';
  }

  @McpTool({ name: 'ask', description: 'Asks the client for a word' })
  async ask(@McpCtx() ctx: McpRequestContext) {
    const answer = await ctx.input.elicit('word', {
      message: 'A word?',
      requestedSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    });
    return `got ${String(answer.content?.word)}`;
  }
}

describe.each(HTTP_ADAPTERS)('Prometheus metrics of a real server (%s)', (adapter: HttpAdapterName) => {
  let app: INestApplication;
  let base: string;
  let url: string;

  beforeEach(async () => {
    MeteredTools.waiting = 0;
    @Module({
      imports: [
        McpModule.forRoot({ name: 'metered', version: '1.0.0', http: { legacySse: false } }),
        McpMetricsModule.forRoot({ route: true }),
      ],
      providers: [MeteredTools],
    })
    class MeteredModule {}
    app = await createHttpApp(MeteredModule, adapter);
    await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    url = `${base}/mcp`;
  });

  afterEach(async () => {
    await app?.close();
  });

  async function scrape(): Promise<ExposedSample[]> {
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    return parseExposition(await response.text());
  }

  /** Scrapes until `probe` holds (some events are published as a connection closes); the samples that passed it. */
  async function scrapeUntil(what: string, probe: (samples: ExposedSample[]) => boolean): Promise<ExposedSample[]> {
    const deadline = Date.now() + 5_000;
    for (;;) {
      const samples = await scrape();
      if (probe(samples)) return samples;
      if (Date.now() > deadline) {
        const shown = samples.filter((sample) => !sample.name.endsWith('_bucket'));
        throw new Error(`${what}: not seen in the scrape ${JSON.stringify(shown, null, 1)}`);
      }
      await sleep(20);
    }
  }

  /** A legacy `tools/call` on the session; its JSON-RPC answer, whether it came as JSON or on an SSE stream. */
  async function legacyCall(sessionId: string, id: number, name: string): Promise<Record<string, unknown>> {
    const response = await fetch(url, {
      method: 'POST',
      headers: legacyHeaders(sessionId),
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }),
    });
    if (!response.headers.get('content-type')?.includes('text/event-stream'))
      return (await response.json()) as Record<string, unknown>;
    const stream = readSse(response);
    await stream.done;
    const answer = stream.events.find((event) => event.message.id === id);
    if (!answer) throw new Error(`no answer to ${name}`);
    return answer.message;
  }

  /** A modern (2026-07-28) `tools/call`, stateless; its JSON-RPC answer. */
  async function modernCall(id: number, name: string): Promise<RpcAnswer> {
    return (await modernToolCall(url, id, name, { _meta: MODERN_META, arguments: {} })).json as RpcAnswer;
  }

  const legacyTool = (tool: string, errorType: string) => ({
    mcp_server_name: 'metered',
    mcp_method_name: 'tools/call',
    gen_ai_tool_name: tool,
    gen_ai_prompt_name: '',
    mcp_resource_template: '',
    error_type: errorType,
    mcp_protocol_version: LEGACY,
    network_transport: 'tcp',
  });

  it('serves GET /metrics with the registry content type and every metric, before any request', async () => {
    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await response.text();
    for (const name of [
      OPERATION,
      'mcp_server_input_required_total',
      'mcp_server_session_duration_seconds',
      'mcp_server_active_sessions',
      'mcp_server_active_streams',
      'mcp_server_cancellations_total',
      'mcp_server_task_status_total',
      'mcp_server_active_tasks',
      'mcp_client_operation_duration_seconds',
      'mcp_client_input_duration_seconds',
    ])
      expect(text).toContain(`# TYPE ${name} `);
  });

  it('legacy era: ok, error, tool error, cancelled and unknown calls; sessions and streams', async () => {
    const sessionId = await openLegacySession(url);
    expect(await legacyCall(sessionId, 1, 'ok')).toMatchObject({ result: { content: [{ text: 'fine' }] } });
    expect(await legacyCall(sessionId, 2, 'fails')).toMatchObject({ error: { code: -32603 } });
    expect(await legacyCall(sessionId, 3, 'refuses')).toMatchObject({ result: { isError: true } });
    expect(await legacyCall(sessionId, 4, 'no-such-tool')).toMatchObject({ error: { code: -32602 } });

    // A call that has nothing to say before its end holds its answer (JSON or SSE) until then.
    const aborted = new AbortController();
    const waiting = fetch(url, {
      method: 'POST',
      headers: legacyHeaders(sessionId),
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'wait', arguments: {} } }),
      signal: aborted.signal,
    }).catch(() => undefined);
    await until('the wait tool running', () => (MeteredTools.waiting === 1 ? true : undefined));
    const standalone = await openGetStream(url, sessionId);
    expect(standalone.status).toBe(200);
    let samples = await scrapeUntil(
      'the GET stream open',
      (now) => valueOf(now, 'mcp_server_active_streams', { mcp_stream_kind: 'get' }) === 1,
    );
    expect(samplesNamed(samples, 'mcp_server_active_sessions')).toEqual([
      {
        name: 'mcp_server_active_sessions',
        labels: { mcp_server_name: 'metered', network_transport: 'tcp' },
        value: 1,
      },
    ]);

    const cancelled = await legacyPost(
      url,
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'enough' } },
      sessionId,
    );
    expect(cancelled.status).toBe(202);
    await until('the wait tool cancelled', () => (MeteredTools.waiting === 0 ? true : undefined));
    aborted.abort();
    await waiting;
    samples = await scrapeUntil(
      'the cancelled call',
      (now) => valueOf(now, OPERATION_COUNT, { error_type: 'cancelled' }) === 1,
    );

    const counted = (labels: Record<string, string>) => samplesNamed(samples, OPERATION_COUNT, labels);
    expect(counted(legacyTool('ok', ''))).toEqual([expect.objectContaining({ value: 1 })]);
    expect(counted(legacyTool('fails', '-32603'))).toEqual([expect.objectContaining({ value: 1 })]);
    expect(counted(legacyTool('refuses', 'tool_error'))).toEqual([expect.objectContaining({ value: 1 })]);
    expect(counted(legacyTool('wait', 'cancelled'))).toEqual([expect.objectContaining({ value: 1 })]);
    expect(counted(legacyTool('_OTHER', '-32602'))).toEqual([expect.objectContaining({ value: 1 })]);
    expect(counted({ mcp_method_name: 'initialize', error_type: '' })).toEqual([expect.objectContaining({ value: 1 })]);
    expect(valueOf(samples, 'mcp_server_cancellations_total', { mcp_server_name: 'metered', found: 'true' })).toBe(1);
    // No id of the session or of a request in a label.
    expect(JSON.stringify(samples)).not.toContain(sessionId);

    await standalone.stream?.cancel();
    const deleted = await fetch(url, { method: 'DELETE', headers: legacyHeaders(sessionId) });
    expect(deleted.status).toBeLessThan(300);
    samples = await scrapeUntil(
      'the session closed',
      (now) => valueOf(now, SESSION_COUNT) === 1 && valueOf(now, 'mcp_server_active_sessions') === 0,
    );
    expect(samplesNamed(samples, SESSION_COUNT)).toEqual([
      {
        name: SESSION_COUNT,
        labels: { mcp_server_name: 'metered', network_transport: 'tcp', mcp_protocol_version: LEGACY },
        value: 1,
      },
    ]);
    await scrapeUntil('every stream closed', (now) => valueOf(now, 'mcp_server_active_streams') === 0);
  });

  it('modern era: ok, error, tool error and a round that asks for input', async () => {
    expect(await modernCall(1, 'ok')).toMatchObject({ result: { content: [{ text: 'fine' }] } });
    expect(await modernCall(2, 'fails')).toMatchObject({ error: { code: -32603 } });
    expect(await modernCall(3, 'refuses')).toMatchObject({ result: { isError: true } });
    expect(await modernCall(4, 'ask')).toMatchObject({ result: { resultType: 'input_required' } });
    const samples = await scrape();
    const modernTool = (tool: string, errorType: string) => ({
      ...legacyTool(tool, errorType),
      mcp_protocol_version: MODERN,
    });
    for (const [tool, errorType] of [
      ['ok', ''],
      ['fails', '-32603'],
      ['refuses', 'tool_error'],
      ['ask', ''],
    ])
      expect(valueOf(samples, OPERATION_COUNT, modernTool(tool, errorType))).toBe(1);
    expect(samplesNamed(samples, 'mcp_server_input_required_total')).toEqual([
      {
        name: 'mcp_server_input_required_total',
        labels: {
          mcp_server_name: 'metered',
          mcp_method_name: 'tools/call',
          gen_ai_tool_name: 'ask',
          gen_ai_prompt_name: '',
          mcp_resource_template: '',
        },
        value: 1,
      },
    ]);
    expect(samplesNamed(samples, 'mcp_server_active_sessions')).toEqual([]);
    expect(samplesNamed(samples, SESSION_COUNT)).toEqual([]);
  });

  it('keeps 10 000 made-up tool names in one _OTHER series', async () => {
    const calls = 10_000;
    // Under the server's bound on connections from one address.
    const batch = 32;
    for (let first = 0; first < calls; first += batch) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(batch, calls - first) }, (_, index) =>
          modernCall(first + index, `bogus-${first + index}`),
        ),
      );
      for (const answer of answers) expect(answer.error?.code).toBe(-32602);
    }
    await modernCall(calls, 'ok');
    const samples = await scrape();
    const series = samplesNamed(samples, OPERATION_COUNT);
    expect(series.map((sample) => sample.labels.gen_ai_tool_name).sort()).toEqual(['_OTHER', 'ok']);
    expect(valueOf(samples, OPERATION_COUNT, { gen_ai_tool_name: '_OTHER', error_type: '-32602' })).toBe(calls);
    // Every line of the scrape, buckets included, stays few.
    expect(samples.length).toBeLessThan(100);
  }, 60_000);
});
