import { MCP_CLIENT_CHANNELS, type McpClientInputEvent, type McpClientRequestTrace } from '@conduit-mcp/client';
import {
  MCP_CHANNELS,
  type McpCancelledEvent,
  type McpRequestTrace,
  type McpSessionEvent,
  type McpStreamEvent,
  type McpTaskEvent,
} from '@conduit-mcp/server';
import { Registry, register } from 'prom-client';
import { OTHER } from '../semconv/mcp.semconv';
import { McpPrometheusMetrics } from './mcp-prometheus.metrics';
import { McpMetricsOptions } from './mcp-metrics.options';
import { publish, samplesOf, seriesOf, traceOperation, valueOf } from './metrics.fixtures-spec';

const OPERATION = 'mcp_server_operation_duration_seconds';
const CLIENT_OPERATION = 'mcp_client_operation_duration_seconds';

function request(fields: Partial<McpRequestTrace> = {}): McpRequestTrace {
  return {
    server: 'notes',
    method: 'tools/call',
    routed: true,
    era: 'modern',
    protocolVersion: '2026-07-28',
    transport: 'streamable-http',
    requestId: 'request-id-42',
    sessionId: 'session-id-secret',
    status: 'ok',
    durationMs: 250,
    ...fields,
  };
}

function tool(name: string, fields: Partial<NonNullable<McpRequestTrace['target']>> = {}): McpRequestTrace['target'] {
  return { kind: 'tool', name, status: 'ok', ...fields };
}

function clientRequest(fields: Partial<McpClientRequestTrace> = {}): McpClientRequestTrace {
  return {
    client: 'assistant',
    server: 'weather',
    method: 'tools/call',
    era: 'legacy',
    target: 'forecast',
    requestId: '7',
    transport: 'stdio',
    protocolVersion: '2025-11-25',
    sessionId: 'client-session-secret',
    traceContext: {},
    status: 'ok',
    durationMs: 40,
    ...fields,
  };
}

describe('McpPrometheusMetrics', () => {
  const started: McpPrometheusMetrics[] = [];

  function metricsWith(options: McpMetricsOptions = {}): McpPrometheusMetrics {
    const metrics = new McpPrometheusMetrics(options);
    metrics.start();
    started.push(metrics);
    return metrics;
  }

  afterEach(() => {
    for (const metrics of started.splice(0)) metrics.stop();
  });

  describe('server operations', () => {
    it('observes one duration per request, in seconds, labelled by the conventions', async () => {
      const { registry } = metricsWith();
      traceOperation(MCP_CHANNELS.request, request({ target: tool('forecast') }));
      expect(await samplesOf(registry, OPERATION)).toEqual(
        expect.arrayContaining([
          {
            name: `${OPERATION}_count`,
            value: 1,
            labels: {
              mcp_server_name: 'notes',
              mcp_method_name: 'tools/call',
              gen_ai_tool_name: 'forecast',
              gen_ai_prompt_name: '',
              mcp_resource_template: '',
              error_type: '',
              mcp_protocol_version: '2026-07-28',
              network_transport: 'tcp',
            },
          },
          expect.objectContaining({ name: `${OPERATION}_sum`, value: 0.25 }),
          expect.objectContaining({
            name: `${OPERATION}_bucket`,
            value: 1,
            labels: expect.objectContaining({ le: 0.5 }),
          }),
          expect.objectContaining({
            name: `${OPERATION}_bucket`,
            value: 0,
            labels: expect.objectContaining({ le: 0.2 }),
          }),
        ]),
      );
    });

    it('counts only at asyncEnd: start, end and asyncStart alone observe nothing', async () => {
      const { registry } = metricsWith();
      const { tracingChannel } = await import('node:diagnostics_channel');
      const traced = tracingChannel<unknown, McpRequestTrace>(MCP_CHANNELS.request);
      const trace = request();
      traced.start.publish(trace);
      traced.end.publish(trace);
      traced.asyncStart.publish(trace);
      expect(await seriesOf(registry, OPERATION)).toEqual([]);
      traced.asyncEnd.publish(trace);
      expect(await seriesOf(registry, OPERATION)).toHaveLength(1);
    });

    it.each([
      ['an error with its code', { status: 'error', errorCode: -32603 }, undefined, '-32603'],
      ['an error without a code', { status: 'error' }, undefined, OTHER],
      ['a tool result with isError', { status: 'ok' }, 'tool_error', 'tool_error'],
      ['a cancelled request', { status: 'cancelled' }, 'cancelled', 'cancelled'],
      ['an ok request', { status: 'ok' }, 'ok', ''],
    ] as const)('names %s in error_type', async (_name, outcome, targetStatus, errorType) => {
      const { registry } = metricsWith();
      const target = targetStatus ? tool('forecast', { status: targetStatus }) : undefined;
      traceOperation(MCP_CHANNELS.request, request({ ...outcome, target }));
      expect(await seriesOf(registry, OPERATION)).toEqual([expect.objectContaining({ error_type: errorType })]);
    });

    it('counts a round that ended asking for input, apart from its duration', async () => {
      const { registry } = metricsWith();
      traceOperation(MCP_CHANNELS.request, request({ target: tool('book', { status: 'input_required' }) }));
      traceOperation(MCP_CHANNELS.request, request({ target: tool('book', { status: 'input_required' }) }));
      traceOperation(MCP_CHANNELS.request, request({ target: tool('book') }));
      expect(await samplesOf(registry, 'mcp_server_input_required_total')).toEqual([
        {
          name: 'mcp_server_input_required_total',
          value: 2,
          labels: {
            mcp_server_name: 'notes',
            mcp_method_name: 'tools/call',
            gen_ai_tool_name: 'book',
            gen_ai_prompt_name: '',
            mcp_resource_template: '',
          },
        },
      ]);
      expect(await valueOf(registry, OPERATION, { error_type: '' }, `${OPERATION}_count`)).toBe(3);
    });

    it('labels prompts by name and resources by template, else by their registered URI', async () => {
      const { registry } = metricsWith();
      traceOperation(
        MCP_CHANNELS.request,
        request({ method: 'prompts/get', target: { kind: 'prompt', name: 'summary', status: 'ok' } }),
      );
      traceOperation(
        MCP_CHANNELS.request,
        request({
          method: 'resources/read',
          target: { kind: 'resource', name: 'notes://42', template: 'notes://{id}', status: 'ok' },
        }),
      );
      traceOperation(
        MCP_CHANNELS.request,
        request({ method: 'resources/read', target: { kind: 'resource', name: 'notes://readme', status: 'ok' } }),
      );
      const series = await seriesOf(registry, OPERATION);
      expect(series).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            mcp_method_name: 'prompts/get',
            gen_ai_prompt_name: 'summary',
            gen_ai_tool_name: '',
          }),
          expect.objectContaining({ mcp_resource_template: 'notes://{id}', gen_ai_prompt_name: '' }),
          expect.objectContaining({ mcp_resource_template: 'notes://readme' }),
        ]),
      );
      expect(series).toHaveLength(3);
    });

    it('records an unrouted method and an unknown tool as _OTHER', async () => {
      const { registry } = metricsWith();
      traceOperation(
        MCP_CHANNELS.request,
        request({ method: 'made/up', routed: false, status: 'error', errorCode: -32601 }),
      );
      traceOperation(
        MCP_CHANNELS.request,
        request({
          target: tool('no-such-tool', { unknown: true, status: 'error' }),
          status: 'error',
          errorCode: -32602,
        }),
      );
      expect(await seriesOf(registry, OPERATION)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ mcp_method_name: OTHER, error_type: '-32601' }),
          expect.objectContaining({ mcp_method_name: 'tools/call', gen_ai_tool_name: OTHER, error_type: '-32602' }),
        ]),
      );
    });

    it('names the transport pipe for stdio and leaves an unknown protocol version empty', async () => {
      const { registry } = metricsWith();
      traceOperation(MCP_CHANNELS.request, request({ transport: 'stdio', protocolVersion: undefined, method: 'ping' }));
      expect(await seriesOf(registry, OPERATION)).toEqual([
        expect.objectContaining({ network_transport: 'pipe', mcp_protocol_version: '', mcp_method_name: 'ping' }),
      ]);
    });

    it('never puts request ids, session ids or trace context in a label', async () => {
      const metrics = metricsWith();
      traceOperation(
        MCP_CHANNELS.request,
        request({ target: tool('forecast'), traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }),
      );
      const text = await metrics.metrics();
      expect(text).toContain('gen_ai_tool_name="forecast"');
      expect(text).not.toMatch(/request-id-42|session-id-secret|0af7651916cd43dd8448eb211c80319c/);
    });

    it('ignores a request without a duration, and never throws at the publisher on a malformed payload', async () => {
      const { registry } = metricsWith();
      traceOperation(MCP_CHANNELS.request, request({ durationMs: undefined }));
      traceOperation(MCP_CHANNELS.request, request({ durationMs: Number.NaN }));
      expect(() => traceOperation(MCP_CHANNELS.request, { nonsense: true } as object)).not.toThrow();
      expect(() => publish(MCP_CHANNELS.session, {})).not.toThrow();
      expect(await seriesOf(registry, OPERATION)).toEqual([]);
    });
  });

  describe('server sessions, streams, cancellations and tasks', () => {
    function session(type: McpSessionEvent['type'], fields: Partial<McpSessionEvent> = {}): McpSessionEvent {
      return { server: 'notes', type, transport: 'streamable-http', ...fields };
    }

    it('keeps the active sessions and observes the duration of those that closed', async () => {
      const { registry } = metricsWith();
      publish(MCP_CHANNELS.session, session('opened'));
      publish(MCP_CHANNELS.session, session('opened'));
      publish(MCP_CHANNELS.session, session('opened', { transport: 'stdio' }));
      publish(
        MCP_CHANNELS.session,
        session('closed', { protocolVersion: '2025-11-25', durationMs: 90_000, ended: true }),
      );
      expect(await samplesOf(registry, 'mcp_server_active_sessions')).toEqual(
        expect.arrayContaining([
          {
            name: 'mcp_server_active_sessions',
            value: 1,
            labels: { mcp_server_name: 'notes', network_transport: 'tcp' },
          },
          {
            name: 'mcp_server_active_sessions',
            value: 1,
            labels: { mcp_server_name: 'notes', network_transport: 'pipe' },
          },
        ]),
      );
      const sessions = 'mcp_server_session_duration_seconds';
      expect(await seriesOf(registry, sessions)).toEqual([
        { mcp_server_name: 'notes', network_transport: 'tcp', mcp_protocol_version: '2025-11-25' },
      ]);
      expect(await valueOf(registry, sessions, {}, `${sessions}_sum`)).toBe(90);
      expect(await valueOf(registry, sessions, { le: '+Inf' } as never, `${sessions}_bucket`)).toBe(1);
    });

    it('never takes the active sessions below zero for a session opened before it started', async () => {
      const { registry } = metricsWith();
      publish(MCP_CHANNELS.session, session('closed', { durationMs: 10 }));
      publish(MCP_CHANNELS.session, session('opened'));
      expect(await valueOf(registry, 'mcp_server_active_sessions', { network_transport: 'tcp' })).toBe(1);
    });

    it('keeps the active streams by kind', async () => {
      const { registry } = metricsWith();
      const stream = (type: McpStreamEvent['type'], kind: McpStreamEvent['kind']): McpStreamEvent => ({
        server: 'notes',
        type,
        kind,
      });
      publish(MCP_CHANNELS.stream, stream('opened', 'reply'));
      publish(MCP_CHANNELS.stream, stream('opened', 'reply'));
      publish(MCP_CHANNELS.stream, stream('opened', 'get'));
      publish(MCP_CHANNELS.stream, { ...stream('closed', 'reply'), durationMs: 5 });
      expect(await valueOf(registry, 'mcp_server_active_streams', { mcp_stream_kind: 'reply' })).toBe(1);
      expect(await valueOf(registry, 'mcp_server_active_streams', { mcp_stream_kind: 'get' })).toBe(1);
    });

    it('counts cancellations, found or not', async () => {
      const { registry } = metricsWith();
      const cancelled = (found: boolean): McpCancelledEvent => ({ server: 'notes', requestId: '3', found });
      publish(MCP_CHANNELS.cancelled, cancelled(true));
      publish(MCP_CHANNELS.cancelled, cancelled(false));
      publish(MCP_CHANNELS.cancelled, cancelled(false));
      expect(await valueOf(registry, 'mcp_server_cancellations_total', { found: 'true' })).toBe(1);
      expect(await valueOf(registry, 'mcp_server_cancellations_total', { found: 'false' })).toBe(2);
    });

    it('counts task statuses and keeps the tasks not yet terminal', async () => {
      const { registry } = metricsWith();
      const task = (type: McpTaskEvent['type'], status: McpTaskEvent['status']): McpTaskEvent => ({
        server: 'notes',
        tool: 'export',
        era: 'modern',
        type,
        status,
      });
      publish(MCP_CHANNELS.task, task('created', 'working'));
      publish(MCP_CHANNELS.task, task('created', 'working'));
      publish(MCP_CHANNELS.task, task('status', 'input_required'));
      publish(MCP_CHANNELS.task, task('status', 'working'));
      publish(MCP_CHANNELS.task, task('status', 'completed'));
      const statuses = 'mcp_server_task_status_total';
      expect(await valueOf(registry, statuses, { gen_ai_tool_name: 'export', mcp_task_status: 'working' })).toBe(3);
      expect(await valueOf(registry, statuses, { mcp_task_status: 'input_required' })).toBe(1);
      expect(await valueOf(registry, statuses, { mcp_task_status: 'completed' })).toBe(1);
      expect(await valueOf(registry, 'mcp_server_active_tasks', { mcp_server_name: 'notes' })).toBe(1);
      publish(MCP_CHANNELS.task, task('status', 'failed'));
      expect(await valueOf(registry, 'mcp_server_active_tasks', { mcp_server_name: 'notes' })).toBe(0);
    });
  });

  describe('client', () => {
    it('observes one duration per request sent, with the tool or prompt by method', async () => {
      const { registry } = metricsWith();
      traceOperation(MCP_CLIENT_CHANNELS.request, clientRequest());
      traceOperation(MCP_CLIENT_CHANNELS.request, clientRequest({ method: 'prompts/get', target: 'summary' }));
      traceOperation(MCP_CLIENT_CHANNELS.request, clientRequest({ method: 'tools/list', target: 'ignored' }));
      expect(await seriesOf(registry, CLIENT_OPERATION)).toEqual(
        expect.arrayContaining([
          {
            mcp_client_name: 'assistant',
            mcp_server_name: 'weather',
            mcp_method_name: 'tools/call',
            gen_ai_tool_name: 'forecast',
            gen_ai_prompt_name: '',
            error_type: '',
            mcp_protocol_version: '2025-11-25',
            network_transport: 'pipe',
          },
          expect.objectContaining({
            mcp_method_name: 'prompts/get',
            gen_ai_prompt_name: 'summary',
            gen_ai_tool_name: '',
          }),
          expect.objectContaining({ mcp_method_name: 'tools/list', gen_ai_prompt_name: '', gen_ai_tool_name: '' }),
        ]),
      );
      expect(await valueOf(registry, CLIENT_OPERATION, {}, `${CLIENT_OPERATION}_sum`)).toBeCloseTo(0.12);
    });

    it.each([
      ['the JSON-RPC code', { status: 'error', errorKind: 'rpc', errorCode: -32602 }, '-32602'],
      ['the kind when there is no code', { status: 'error', errorKind: 'timeout' }, 'timeout'],
      ['_OTHER with neither', { status: 'error' }, OTHER],
      ['nothing when it succeeded', { status: 'ok' }, ''],
    ] as const)('names in error_type %s', async (_name, outcome, errorType) => {
      const { registry } = metricsWith();
      traceOperation(MCP_CLIENT_CHANNELS.request, clientRequest({ ...outcome, transport: 'streamable-http' }));
      expect(await seriesOf(registry, CLIENT_OPERATION)).toEqual([
        expect.objectContaining({ error_type: errorType, network_transport: 'tcp' }),
      ]);
    });

    it('observes the answers to the server questions, by status', async () => {
      const { registry } = metricsWith();
      const input = (status: McpClientInputEvent['status'], durationMs: number): McpClientInputEvent => ({
        client: 'assistant',
        server: 'weather',
        method: 'elicitation/create',
        era: 'modern',
        status,
        durationMs,
      });
      publish(MCP_CLIENT_CHANNELS.input, input('ok', 1_500));
      publish(MCP_CLIENT_CHANNELS.input, input('ok', 500));
      publish(MCP_CLIENT_CHANNELS.input, input('refused', 3));
      const histogram = 'mcp_client_input_duration_seconds';
      expect(await valueOf(registry, histogram, { status: 'ok' }, `${histogram}_count`)).toBe(2);
      expect(await valueOf(registry, histogram, { status: 'ok' }, `${histogram}_sum`)).toBe(2);
      expect(await seriesOf(registry, histogram)).toEqual(
        expect.arrayContaining([
          {
            mcp_client_name: 'assistant',
            mcp_server_name: 'weather',
            mcp_method_name: 'elicitation/create',
            status: 'refused',
          },
        ]),
      );
    });
  });

  describe('lifecycle and registries', () => {
    it('counts nothing before start and after stop; stop and start are idempotent', async () => {
      const metrics = new McpPrometheusMetrics();
      started.push(metrics);
      traceOperation(MCP_CHANNELS.request, request());
      metrics.start();
      metrics.start();
      traceOperation(MCP_CHANNELS.request, request());
      publish(MCP_CHANNELS.session, { server: 'notes', type: 'opened', transport: 'sse' });
      traceOperation(MCP_CLIENT_CHANNELS.request, clientRequest());
      metrics.stop();
      metrics.stop();
      traceOperation(MCP_CHANNELS.request, request());
      publish(MCP_CHANNELS.session, { server: 'notes', type: 'opened', transport: 'sse' });
      publish(MCP_CHANNELS.cancelled, { server: 'notes', requestId: '1', found: true });
      traceOperation(MCP_CLIENT_CHANNELS.request, clientRequest());
      const { registry } = metrics;
      expect(await valueOf(registry, OPERATION, {}, `${OPERATION}_count`)).toBe(1);
      expect(await valueOf(registry, 'mcp_server_active_sessions', {})).toBe(1);
      expect(await samplesOf(registry, 'mcp_server_cancellations_total')).toEqual([]);
      expect(await valueOf(registry, CLIENT_OPERATION, {}, `${CLIENT_OPERATION}_count`)).toBe(1);
      // Started again, it counts again.
      metrics.start();
      traceOperation(MCP_CHANNELS.request, request());
      expect(await valueOf(registry, OPERATION, {}, `${OPERATION}_count`)).toBe(2);
    });

    it('keeps two instances apart, each on its own registry', async () => {
      const first = metricsWith();
      const second = metricsWith();
      expect(first.registry).not.toBe(second.registry);
      traceOperation(MCP_CHANNELS.request, request());
      second.stop();
      traceOperation(MCP_CHANNELS.request, request());
      expect(await valueOf(first.registry, OPERATION, {}, `${OPERATION}_count`)).toBe(2);
      expect(await valueOf(second.registry, OPERATION, {}, `${OPERATION}_count`)).toBe(1);
    });

    it('prefixes every name and shares a registry given, refusing a second instance with the same names', async () => {
      const registry = new Registry();
      const metrics = metricsWith({ prefix: 'myapp_', registry });
      expect(metrics.registry).toBe(registry);
      const names = registry.getMetricsAsArray().map((metric) => metric.name);
      expect(names.sort()).toEqual(
        [
          'myapp_mcp_server_operation_duration_seconds',
          'myapp_mcp_server_input_required_total',
          'myapp_mcp_server_session_duration_seconds',
          'myapp_mcp_server_active_sessions',
          'myapp_mcp_server_active_streams',
          'myapp_mcp_server_cancellations_total',
          'myapp_mcp_server_task_status_total',
          'myapp_mcp_server_active_tasks',
          'myapp_mcp_client_operation_duration_seconds',
          'myapp_mcp_client_input_duration_seconds',
        ].sort(),
      );
      expect(() => new McpPrometheusMetrics({ prefix: 'myapp_', registry })).toThrow(
        'McpPrometheusMetrics: the registry already has a metric named myapp_mcp_server_operation_duration_seconds',
      );
      expect(() => metricsWith({ prefix: 'other_', registry })).not.toThrow();
    });

    it('registers on prom-client global register when given it', async () => {
      const metrics = metricsWith({ registry: register, prefix: 'global_test_' });
      try {
        traceOperation(MCP_CHANNELS.request, request());
        expect(await register.metrics()).toContain('global_test_mcp_server_operation_duration_seconds_count{');
      } finally {
        metrics.stop();
        for (const metric of register.getMetricsAsArray())
          if (metric.name.startsWith('global_test_')) register.removeSingleMetric(metric.name);
      }
    });

    it('refuses a prefix that is not a metric name', () => {
      expect(() => new McpPrometheusMetrics({ prefix: 'my-app_' })).toThrow(
        'McpPrometheusMetrics: prefix must be empty or match /^[a-zA-Z_:][a-zA-Z0-9_:]*$/ (got "my-app_")',
      );
    });

    it('uses the buckets given', async () => {
      const { registry } = metricsWith({ buckets: [0.5, 5], sessionBuckets: [60] });
      traceOperation(MCP_CHANNELS.request, request());
      publish(MCP_CHANNELS.session, { server: 'notes', type: 'closed', transport: 'sse', durationMs: 1_000 });
      const bounds = async (name: string) =>
        (await samplesOf(registry, name)).filter((sample) => sample.name === `${name}_bucket`).map((s) => s.labels.le);
      expect(await bounds(OPERATION)).toEqual([0.5, 5, '+Inf']);
      expect(await bounds('mcp_server_session_duration_seconds')).toEqual([60, '+Inf']);
    });

    it('registers only the side it observes', () => {
      const serverOnly = metricsWith({ client: false });
      const clientOnly = metricsWith({ server: false });
      expect(serverOnly.registry.getSingleMetric(CLIENT_OPERATION)).toBeUndefined();
      expect(serverOnly.registry.getSingleMetric(OPERATION)).toBeDefined();
      expect(clientOnly.registry.getSingleMetric(OPERATION)).toBeUndefined();
      expect(clientOnly.registry.getSingleMetric(CLIENT_OPERATION)).toBeDefined();
    });

    it('answers the exposition text with the registry content type', async () => {
      const metrics = metricsWith();
      traceOperation(MCP_CHANNELS.request, request({ target: tool('forecast') }));
      expect(metrics.contentType).toBe(metrics.registry.contentType);
      expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await metrics.metrics();
      expect(text).toContain('# TYPE mcp_server_operation_duration_seconds histogram');
      expect(text).toContain('# HELP mcp_server_active_sessions ');
      expect(text).toMatch(/^mcp_server_operation_duration_seconds_count\{[^}]*gen_ai_tool_name="forecast"[^}]*\} 1$/m);
    });
  });

  describe('cardinality', () => {
    it('bounds each label to maxLabelValues values, the rest as _OTHER', async () => {
      const { registry } = metricsWith({ maxLabelValues: 3 });
      for (const name of ['a', 'b', 'c', 'd', 'e', 'a'])
        traceOperation(MCP_CHANNELS.request, request({ target: tool(name) }));
      const tools = (await seriesOf(registry, OPERATION)).map((labels) => labels.gen_ai_tool_name);
      expect(tools.sort()).toEqual(['_OTHER', 'a', 'b', 'c']);
      expect(await valueOf(registry, OPERATION, { gen_ai_tool_name: OTHER }, `${OPERATION}_count`)).toBe(2);
      expect(await valueOf(registry, OPERATION, { gen_ai_tool_name: 'a' }, `${OPERATION}_count`)).toBe(2);
    });

    it('keeps 10 000 made-up tool names the server did not flag within maxLabelValues + 1 series', async () => {
      const maxLabelValues = 50;
      const { registry } = metricsWith({ maxLabelValues });
      for (let index = 0; index < 10_000; index++)
        traceOperation(MCP_CHANNELS.request, request({ target: tool(`bogus-${index}-${'x'.repeat(index % 300)}`) }));
      const series = await seriesOf(registry, OPERATION);
      expect(series).toHaveLength(maxLabelValues + 1);
      expect(new Set(series.map((labels) => labels.gen_ai_tool_name)).size).toBe(maxLabelValues + 1);
      for (const labels of series) expect(String(labels.gen_ai_tool_name).length).toBeLessThanOrEqual(128);
      expect(await valueOf(registry, OPERATION, { gen_ai_tool_name: OTHER }, `${OPERATION}_count`)).toBe(
        10_000 - maxLabelValues,
      );
    });

    it('records 10 000 tool names the server flagged unknown as _OTHER, one series', async () => {
      const { registry } = metricsWith();
      for (let index = 0; index < 10_000; index++)
        traceOperation(
          MCP_CHANNELS.request,
          request({
            target: tool(`bogus-${index}`, { unknown: true, status: 'error' }),
            status: 'error',
            errorCode: -32602,
          }),
        );
      expect(await seriesOf(registry, OPERATION)).toEqual([expect.objectContaining({ gen_ai_tool_name: OTHER })]);
      expect(await valueOf(registry, OPERATION, {}, `${OPERATION}_count`)).toBe(10_000);
    });

    it('bounds methods, servers and clients too, one bound per label name across metrics', async () => {
      const { registry } = metricsWith({ maxLabelValues: 2 });
      for (let index = 0; index < 100; index++) {
        traceOperation(MCP_CHANNELS.request, request({ server: `server-${index}`, method: `method/${index}` }));
        traceOperation(MCP_CLIENT_CHANNELS.request, clientRequest({ client: `client-${index}`, method: `m/${index}` }));
      }
      const distinct = (series: Array<Record<string, string | number>>, label: string) =>
        [...new Set(series.map((labels) => labels[label]))].sort();
      const server = await seriesOf(registry, OPERATION);
      // The client's server id 'weather' took the second mcp_server_name value.
      expect(distinct(server, 'mcp_server_name')).toEqual([OTHER, 'server-0']);
      expect(distinct(server, 'mcp_method_name')).toEqual([OTHER, 'method/0']);
      const client = await seriesOf(registry, CLIENT_OPERATION);
      expect(distinct(client, 'mcp_client_name')).toEqual([OTHER, 'client-0', 'client-1']);
      expect(distinct(client, 'mcp_server_name')).toEqual(['weather']);
      expect(distinct(client, 'mcp_method_name')).toEqual([OTHER, 'm/0']);
    });
  });
});
