import { Counter, Histogram } from 'prom-client';
import {
  MCP_CHANNELS,
  type McpCancelledEvent,
  type McpRequestTarget,
  type McpRequestTrace,
  type McpSessionEvent,
  type McpStreamEvent,
  type McpTaskEvent,
} from '@conduit-mcp/server';
import { OTHER, errorTypeOf, networkTransportOf } from '../semconv/mcp.semconv';
import { ChannelSubscriptions } from './channel.subscriptions';
import { isDuration } from './durations';
import { LabelValues } from './label.values';
import { ActiveGauge, MetricFactory } from './metric.factory';

const TARGET_LABELS = ['gen_ai_tool_name', 'gen_ai_prompt_name', 'mcp_resource_template'] as const;
const OPERATION_LABELS = [
  'mcp_server_name',
  'mcp_method_name',
  ...TARGET_LABELS,
  'error_type',
  'mcp_protocol_version',
  'network_transport',
] as const;
const INPUT_REQUIRED_LABELS = ['mcp_server_name', 'mcp_method_name', ...TARGET_LABELS] as const;
const SESSION_LABELS = ['mcp_server_name', 'network_transport', 'mcp_protocol_version'] as const;
const ACTIVE_SESSION_LABELS = ['mcp_server_name', 'network_transport'] as const;
const STREAM_LABELS = ['mcp_server_name', 'mcp_stream_kind'] as const;
const CANCELLATION_LABELS = ['mcp_server_name', 'found'] as const;
const TASK_STATUS_LABELS = ['mcp_server_name', 'gen_ai_tool_name', 'mcp_task_status'] as const;
const ACTIVE_TASK_LABELS = ['mcp_server_name'] as const;

type Labels<L extends readonly string[]> = Record<L[number], string>;

const TERMINAL_TASK_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/** The server's metrics, fed by the server's channels (`MCP_CHANNELS`). */
export class ServerMetrics {
  private readonly operationDuration: Histogram<(typeof OPERATION_LABELS)[number]>;
  private readonly inputRequired: Counter<(typeof INPUT_REQUIRED_LABELS)[number]>;
  private readonly sessionDuration: Histogram<(typeof SESSION_LABELS)[number]>;
  private readonly activeSessions: ActiveGauge<(typeof ACTIVE_SESSION_LABELS)[number]>;
  private readonly activeStreams: ActiveGauge<(typeof STREAM_LABELS)[number]>;
  private readonly cancellations: Counter<(typeof CANCELLATION_LABELS)[number]>;
  private readonly taskStatuses: Counter<(typeof TASK_STATUS_LABELS)[number]>;
  private readonly activeTasks: ActiveGauge<(typeof ACTIVE_TASK_LABELS)[number]>;

  constructor(
    factory: MetricFactory,
    private readonly labels: LabelValues,
    buckets: { operation: number[]; session: number[] },
  ) {
    this.operationDuration = factory.histogram(
      'mcp_server_operation_duration_seconds',
      'Duration of the MCP requests a server answered, from the request to its answer.',
      OPERATION_LABELS,
      buckets.operation,
    );
    this.inputRequired = factory.counter(
      'mcp_server_input_required_total',
      'Modern-era rounds of tools/call, prompts/get or resources/read that ended asking the client for input.',
      INPUT_REQUIRED_LABELS,
    );
    this.sessionDuration = factory.histogram(
      'mcp_server_session_duration_seconds',
      'Duration of the MCP sessions that closed on this instance.',
      SESSION_LABELS,
      buckets.session,
    );
    this.activeSessions = new ActiveGauge(
      factory.gauge('mcp_server_active_sessions', 'MCP sessions live on this instance.', ACTIVE_SESSION_LABELS),
      ACTIVE_SESSION_LABELS,
    );
    this.activeStreams = new ActiveGauge(
      factory.gauge('mcp_server_active_streams', 'Server-Sent Events streams open on this instance.', STREAM_LABELS),
      STREAM_LABELS,
    );
    this.cancellations = factory.counter(
      'mcp_server_cancellations_total',
      'notifications/cancelled received; found: whether the request was running here.',
      CANCELLATION_LABELS,
    );
    this.taskStatuses = factory.counter(
      'mcp_server_task_status_total',
      'Task creations and changes of status, by the status reached.',
      TASK_STATUS_LABELS,
    );
    this.activeTasks = new ActiveGauge(
      factory.gauge('mcp_server_active_tasks', 'Tasks created and not yet in a terminal status.', ACTIVE_TASK_LABELS),
      ACTIVE_TASK_LABELS,
    );
  }

  subscribe(subscriptions: ChannelSubscriptions): void {
    subscriptions.onAsyncEnd<McpRequestTrace>(MCP_CHANNELS.request, (trace) => this.onRequest(trace));
    subscriptions.on<McpSessionEvent>(MCP_CHANNELS.session, (event) => this.onSession(event));
    subscriptions.on<McpStreamEvent>(MCP_CHANNELS.stream, (event) => this.onStream(event));
    subscriptions.on<McpCancelledEvent>(MCP_CHANNELS.cancelled, (event) => this.onCancelled(event));
    subscriptions.on<McpTaskEvent>(MCP_CHANNELS.task, (event) => this.onTask(event));
  }

  private onRequest(trace: McpRequestTrace): void {
    const target = this.targetLabels(trace.target);
    const server = this.labels.bound('mcp_server_name', trace.server);
    // A method no route serves is whatever the client sent.
    const method = trace.routed ? this.labels.bound('mcp_method_name', trace.method) : OTHER;
    if (isDuration(trace.durationMs)) {
      const errorType = errorTypeOf({
        status: trace.status,
        errorCode: trace.errorCode,
        toolError: trace.target?.status === 'tool_error',
      });
      const labels: Labels<typeof OPERATION_LABELS> = {
        mcp_server_name: server,
        mcp_method_name: method,
        ...target,
        error_type: this.labels.bound('error_type', errorType),
        mcp_protocol_version: this.labels.bound('mcp_protocol_version', trace.protocolVersion),
        network_transport: this.labels.bound('network_transport', networkTransportOf(trace.transport)),
      };
      this.operationDuration.observe(labels, trace.durationMs / 1000);
    }
    if (trace.target?.status === 'input_required')
      this.inputRequired.inc({ mcp_server_name: server, mcp_method_name: method, ...target });
  }

  private targetLabels(target: McpRequestTarget | undefined): Labels<typeof TARGET_LABELS> {
    const labels = { gen_ai_tool_name: '', gen_ai_prompt_name: '', mcp_resource_template: '' };
    if (!target) return labels;
    const label =
      target.kind === 'tool'
        ? 'gen_ai_tool_name'
        : target.kind === 'prompt'
          ? 'gen_ai_prompt_name'
          : 'mcp_resource_template';
    // An unknown name is what the client asked for; a resource without a template is its registered URI.
    labels[label] = target.unknown ? OTHER : this.labels.bound(label, target.template ?? target.name);
    return labels;
  }

  private onSession(event: McpSessionEvent): void {
    const server = this.labels.bound('mcp_server_name', event.server);
    const transport = this.labels.bound('network_transport', networkTransportOf(event.transport));
    const active = { mcp_server_name: server, network_transport: transport };
    if (event.type === 'opened') return this.activeSessions.inc(active);
    this.activeSessions.dec(active);
    if (isDuration(event.durationMs))
      this.sessionDuration.observe(
        { ...active, mcp_protocol_version: this.labels.bound('mcp_protocol_version', event.protocolVersion) },
        event.durationMs / 1000,
      );
  }

  private onStream(event: McpStreamEvent): void {
    const labels = {
      mcp_server_name: this.labels.bound('mcp_server_name', event.server),
      mcp_stream_kind: this.labels.bound('mcp_stream_kind', event.kind),
    };
    if (event.type === 'opened') this.activeStreams.inc(labels);
    else this.activeStreams.dec(labels);
  }

  private onCancelled(event: McpCancelledEvent): void {
    this.cancellations.inc({
      mcp_server_name: this.labels.bound('mcp_server_name', event.server),
      found: event.found ? 'true' : 'false',
    });
  }

  private onTask(event: McpTaskEvent): void {
    const server = this.labels.bound('mcp_server_name', event.server);
    this.taskStatuses.inc({
      mcp_server_name: server,
      gen_ai_tool_name: this.labels.bound('gen_ai_tool_name', event.tool),
      mcp_task_status: this.labels.bound('mcp_task_status', event.status),
    });
    if (event.type === 'created') this.activeTasks.inc({ mcp_server_name: server });
    else if (TERMINAL_TASK_STATUSES.has(event.status)) this.activeTasks.dec({ mcp_server_name: server });
  }
}
