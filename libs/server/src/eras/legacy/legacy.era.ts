import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_HTTP_REVISION,
  ErrorCode,
  JsonRpcRequest,
  McpError,
  SchemaValidator,
  sanitizeText,
} from '@conduit-mcp/core';
import { LegacyInput, LegacyInputLimits, LegacyTaskQuestions } from './legacy-input';
import { McpSession } from '../../session/mcp-session';
import { MessageSink } from '../../session/message-sink.interface';
import { RequestCancellation } from '../../session/request-cancellation';
import { McpInvocation } from '../../context/mcp-invocation';
import { McpRequestContext } from '../../context/mcp-request-context';
import { McpRequestState } from '../../context/mcp-request-state';
import { McpModuleOptions } from '../../interfaces/mcp-module-options.interface';
import {
  DEFAULT_INPUT_TIMEOUT_MS,
  DEFAULT_MAX_PENDING_INPUT,
  DEFAULT_MAX_PENDING_INPUT_BYTES,
} from '../../mcp.constants';
import { MCP_MODULE_OPTIONS } from '../../mcp.module-definition';
import { servesEra, supportedRevisions } from '../../server-info';
import { DispatchOrigin } from '../../dispatch/dispatch-origin.interface';
import { EraEngine, EraPlan } from '../../dispatch/era-engine.interface';
import { metaOf } from '../request-meta';
import { McpScopePolicy } from '../../auth/scope.policy';

/**
 * The legacy era (2024-11-05 … 2025-11-25): what `initialize` negotiated lives in the session; questions to the
 * client are server-to-client requests on the request's stream.
 */
@Injectable()
export class LegacyEra implements EraEngine {
  private readonly inputLimits: LegacyInputLimits;

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly schemas: SchemaValidator,
    private readonly scopes: McpScopePolicy,
  ) {
    this.inputLimits = {
      timeoutMs: options.inputTimeoutMs ?? DEFAULT_INPUT_TIMEOUT_MS,
      maxPending: options.maxPendingInputPerSession ?? DEFAULT_MAX_PENDING_INPUT,
      maxPendingBytes: options.maxPendingInputBytesPerSession ?? DEFAULT_MAX_PENDING_INPUT_BYTES,
    };
  }

  /** The questions of a legacy request (or, with `task`, of a call running as a task) to the session's client. */
  input(
    session: McpSession,
    sinkOf: () => MessageSink | undefined,
    cancellation: Pick<RequestCancellation, 'signal'>,
    task?: LegacyTaskQuestions,
  ): LegacyInput {
    return new LegacyInput(session, sinkOf, cancellation, this.inputLimits, this.schemas, task);
  }

  plan(request: JsonRpcRequest, origin: DispatchOrigin): EraPlan {
    if (!servesEra(this.options, 'legacy')) {
      // A legacy client has no way forward: name the revisions served, so it can at least say why.
      throw new McpError(
        ErrorCode.UnsupportedProtocolVersion,
        'Unsupported protocol version: this server serves only the modern era',
        {
          supported: supportedRevisions(this.options),
          requested: sanitizeText(String(request.params?.protocolVersion ?? 'none'), 64),
        },
      );
    }
    const { session } = origin;
    const revision = session.revision ?? DEFAULT_HTTP_REVISION;
    return {
      era: 'legacy',
      revision,
      context: (cancellation) => {
        const input = this.input(session, () => invocation.sink, cancellation);
        const invocation: McpInvocation = new McpInvocation({
          server: this.options.name,
          method: request.method,
          requestId: request.id,
          era: 'legacy',
          protocolVersion: revision,
          session,
          stream: origin.stream,
          transport: origin.facts,
          cancellation,
          meta: metaOf(request),
          input,
          state: new McpRequestState(),
          clientInfo: session.clientInfo,
          clientCapabilities: session.clientCapabilities,
          logThreshold: () => session.logLevel ?? 'debug',
          scopes: this.scopes,
        });
        return new McpRequestContext(invocation);
      },
      settle: (outcome) => {
        if (!outcome.ok) throw outcome.error;
        return outcome.result;
      },
    };
  }
}
