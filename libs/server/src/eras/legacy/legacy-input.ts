import {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestParams,
  ElicitResult,
  ListRootsResult,
  McpError,
  ErrorCode,
  checkElicitationSchema,
} from '@conduit-mcp/core';
import { McpSession } from '../../session/mcp-session';
import { MessageSink } from '../../session/message-sink.interface';
import { RequestCancellation } from '../../session/request-cancellation';
import { McpInput } from '../../context/mcp-input.interface';

/** Legacy era: each question is a server-to-client request on the request's stream, awaited for its answer. */
export class LegacyInput implements McpInput {
  constructor(
    private readonly session: McpSession,
    /** Where the request's messages go now (its invocation's sink, which can be re-pointed). */
    private readonly sinkOf: () => MessageSink | undefined,
    private readonly cancellation: RequestCancellation,
    private readonly timeoutMs: number,
  ) {}

  async elicit(_key: string, params: ElicitRequestParams): Promise<ElicitResult> {
    const mode = params.mode ?? 'form';
    if (params.mode !== 'url') {
      // A schema outside the elicitation subset is the server's bug: clients would refuse it, so fail here, loudly.
      const problems = checkElicitationSchema(params.requestedSchema);
      if (problems.length) throw new Error(`Invalid elicitation schema: ${problems.join('; ')}`);
    }
    this.require(mode === 'url' ? 'elicitation.url' : 'elicitation', 'elicitation/create', (c) =>
      mode === 'url' ? !!c.elicitation?.url : !!c.elicitation,
    );
    return (await this.ask('elicitation/create', params as Record<string, unknown>)) as unknown as ElicitResult;
  }

  async sample(_key: string, params: CreateMessageRequestParams): Promise<CreateMessageResult> {
    this.require('sampling', 'sampling/createMessage', (c) => !!c.sampling);
    return (await this.ask(
      'sampling/createMessage',
      params as unknown as Record<string, unknown>,
    )) as unknown as CreateMessageResult;
  }

  async roots(_key: string): Promise<ListRootsResult> {
    this.require('roots', 'roots/list', (c) => !!c.roots);
    return (await this.ask('roots/list', {})) as unknown as ListRootsResult;
  }

  private require(name: string, method: string, has: (capabilities: ClientCapabilities) => boolean): void {
    // The client's answer arrives in a later HTTP request, which only a session can route back here.
    if (!this.session.persistent) {
      throw new McpError(ErrorCode.ServerError, `${method} needs a session; this server runs stateless HTTP`);
    }
    if (!has(this.session.clientCapabilities)) {
      throw new McpError(ErrorCode.InvalidRequest, `The client does not support ${name}`);
    }
  }

  private ask(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const sink = this.sinkOf();
    if (!sink || sink.closed) {
      return Promise.reject(new McpError(ErrorCode.ServerError, `No open stream to send ${method} on`));
    }
    return this.session.request(method, params, sink, { timeoutMs: this.timeoutMs, signal: this.cancellation.signal });
  }
}
