import { Histogram } from 'prom-client';
import { MCP_CLIENT_CHANNELS, type McpClientInputEvent, type McpClientRequestTrace } from '@conduit-mcp/client';
import { errorTypeOf, networkTransportOf } from '../semconv/mcp.semconv';
import { ChannelSubscriptions } from './channel.subscriptions';
import { LabelValues } from './label.values';
import { MetricFactory } from './metric.factory';
import { isDuration } from './durations';

const OPERATION_LABELS = [
  'mcp_client_name',
  'mcp_server_name',
  'mcp_method_name',
  'gen_ai_tool_name',
  'gen_ai_prompt_name',
  'error_type',
  'mcp_protocol_version',
  'network_transport',
] as const;
const INPUT_LABELS = ['mcp_client_name', 'mcp_server_name', 'mcp_method_name', 'status'] as const;

/** The client's metrics, fed by the client's channels (`MCP_CLIENT_CHANNELS`). */
export class ClientMetrics {
  private readonly operationDuration: Histogram<(typeof OPERATION_LABELS)[number]>;
  private readonly inputDuration: Histogram<(typeof INPUT_LABELS)[number]>;

  constructor(
    factory: MetricFactory,
    private readonly labels: LabelValues,
    buckets: number[],
  ) {
    this.operationDuration = factory.histogram(
      'mcp_client_operation_duration_seconds',
      'Duration of the MCP requests a client sent, from sending to the answer (each modern input round counts).',
      OPERATION_LABELS,
      buckets,
    );
    // One histogram: its _count, by status, is the number of questions answered, refused, failed or cancelled.
    this.inputDuration = factory.histogram(
      'mcp_client_input_duration_seconds',
      "Duration of the client's answers to the server's questions (sampling, elicitation, roots), by status.",
      INPUT_LABELS,
      buckets,
    );
  }

  subscribe(subscriptions: ChannelSubscriptions): void {
    subscriptions.onAsyncEnd<McpClientRequestTrace>(MCP_CLIENT_CHANNELS.request, (trace) => this.onRequest(trace));
    subscriptions.on<McpClientInputEvent>(MCP_CLIENT_CHANNELS.input, (event) => this.onInput(event));
  }

  private onRequest(trace: McpClientRequestTrace): void {
    if (!isDuration(trace.durationMs)) return;
    // A failure without a JSON-RPC code is named by its kind (timeout, transport, …): a small closed set.
    const errorType =
      trace.status === 'error' && trace.errorCode === undefined && trace.errorKind
        ? trace.errorKind
        : errorTypeOf({ status: trace.status, errorCode: trace.errorCode });
    this.operationDuration.observe(
      {
        mcp_client_name: this.labels.bound('mcp_client_name', trace.client),
        mcp_server_name: this.labels.bound('mcp_server_name', trace.server),
        mcp_method_name: this.labels.bound('mcp_method_name', trace.method),
        gen_ai_tool_name: trace.method === 'tools/call' ? this.labels.bound('gen_ai_tool_name', trace.target) : '',
        gen_ai_prompt_name: trace.method === 'prompts/get' ? this.labels.bound('gen_ai_prompt_name', trace.target) : '',
        error_type: this.labels.bound('error_type', errorType),
        mcp_protocol_version: this.labels.bound('mcp_protocol_version', trace.protocolVersion),
        network_transport: this.labels.bound('network_transport', networkTransportOf(trace.transport)),
      },
      trace.durationMs / 1000,
    );
  }

  private onInput(event: McpClientInputEvent): void {
    if (!isDuration(event.durationMs)) return;
    this.inputDuration.observe(
      {
        mcp_client_name: this.labels.bound('mcp_client_name', event.client),
        mcp_server_name: this.labels.bound('mcp_server_name', event.server),
        mcp_method_name: this.labels.bound('mcp_method_name', event.method),
        status: this.labels.bound('status', event.status),
      },
      event.durationMs / 1000,
    );
  }
}
