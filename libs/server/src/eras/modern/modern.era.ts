import { Inject, Injectable } from '@nestjs/common';
import {
  ErrorCode,
  Implementation,
  JsonRpcRequest,
  McpError,
  META_SERVER_INFO,
  MODERN_REVISIONS,
  MRTR_METHODS,
  SchemaValidator,
  invalidParams,
  isConstant,
  markConstant,
} from '@conduit-mcp/core';
import { McpInvocation } from '../../context/mcp-invocation';
import { McpRequestContext } from '../../context/mcp-request-context';
import { McpRequestState } from '../../context/mcp-request-state';
import { McpModuleOptions } from '../../interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from '../../mcp.module-definition';
import { checkModernHeaders } from './modern-headers.check';
import { checkRevision, readModernMeta } from './modern-meta';
import { ModernInput, NoInput } from './mrtr/modern-input';
import { RequestBinding, RequestStateCodec } from './mrtr/request-state.codec';
import { McpRegistry } from '../../registry/mcp.registry';
import { serverInfoOf, servesEra, supportedRevisions } from '../../server-info';
import { DispatchOrigin } from '../../dispatch/dispatch-origin.interface';
import { principalOf } from '../../auth/auth-principal';
import { EraEngine, EraPlan } from '../../dispatch/era-engine.interface';
import { metaOf } from '../request-meta';
import { ArgumentBounds } from '../../arguments/argument-bounds';
import { sealingKeysOf } from '../../sealing-key';
import { McpScopePolicy } from '../../auth/scope.policy';

const DEFAULT_STATE_TTL_MS = 10 * 60_000;

/**
 * The modern era (2026-07-28): every request carries its revision and the client's capabilities in `_meta`, nothing
 * is inferred from earlier requests. Questions to the client become an `input_required` result (MRTR); the
 * client's retry carries the answers, and the handler's `ctx.state` travels sealed in `requestState`.
 */
@Injectable()
export class ModernEra implements EraEngine {
  private readonly codec: RequestStateCodec | undefined;
  private readonly paramBounds: ArgumentBounds;
  private readonly supported: string[];
  private readonly modern: readonly string[];
  private readonly serverInfo: Implementation;
  private readonly completed = new WeakMap<object, Record<string, unknown>>();
  private readonly serverMeta: Record<string, unknown>;

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly registry: McpRegistry,
    private readonly schemas: SchemaValidator,
    private readonly scopes: McpScopePolicy,
  ) {
    this.supported = supportedRevisions(options);
    this.modern = servesEra(options, 'modern') ? MODERN_REVISIONS : [];
    this.serverInfo = serverInfoOf(options);
    this.serverMeta = Object.freeze({ [META_SERVER_INFO]: this.serverInfo });
    // Only a server that serves the modern era seals request states (RequestStateKeyWarning warns about a random key).
    this.codec = this.modern.length
      ? new RequestStateCodec(sealingKeysOf(options), options.requestState?.ttlMs ?? DEFAULT_STATE_TTL_MS)
      : undefined;
    this.paramBounds = ArgumentBounds.forParams(options.arguments);
  }

  plan(request: JsonRpcRequest, origin: DispatchOrigin): EraPlan {
    const params = request.params ?? {};
    // The ladder: malformed _meta (-32602), then headers that disagree with the body (-32020), then a revision
    // not served (-32022).
    const meta = readModernMeta(params);
    if (origin.facts.kind === 'streamable-http' || origin.facts.kind === 'sse') {
      const tool =
        request.method === 'tools/call' && typeof params.name === 'string'
          ? this.registry.tool(params.name)
          : undefined;
      checkModernHeaders(request, meta.revision, origin.facts.headers, tool?.headerParams ?? []);
    }
    checkRevision(meta.revision, this.modern, this.supported);
    const codec = this.codec!; // the revision check passed, so the modern era is served and has its codec
    const mrtr = MRTR_METHODS.has(request.method);
    // What a request state is bound to; only a round that opens or seals one needs it (hashing params is not free).
    // The caller is the app's hook's, when it has one (even naming nobody), else the authenticated one.
    let binding: RequestBinding | undefined;
    const stateOptions = this.options.requestState;
    const bindingOf = (): RequestBinding =>
      (binding ??= {
        method: request.method,
        digest: RequestStateCodec.digest(params, this.paramBounds),
        principal: stateOptions?.principal ? stateOptions.principal(origin.facts) : principalOf(origin.facts.auth),
      });
    const round = mrtr && params.requestState !== undefined ? codec.open(params.requestState, bindingOf) : undefined;
    const responses = params.inputResponses === undefined ? {} : params.inputResponses;
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
      throw invalidParams('Invalid "inputResponses": an object is required');
    // Answers are only read: a first round (no request state) reads the request's own.
    const answers = round
      ? { ...round.answers, ...(responses as Record<string, unknown>) }
      : (responses as Record<string, unknown>);
    const input = mrtr ? new ModernInput(answers, meta.clientCapabilities, this.schemas) : undefined;

    return {
      era: 'modern',
      revision: meta.revision,
      context: (cancellation) =>
        new McpRequestContext(
          new McpInvocation({
            server: this.options.name,
            method: request.method,
            requestId: request.id,
            era: 'modern',
            protocolVersion: meta.revision,
            session: origin.session,
            stream: origin.stream,
            transport: origin.facts,
            cancellation,
            meta: metaOf(request),
            input: input ?? new NoInput(request.method),
            state: new McpRequestState(round?.state),
            clientInfo: meta.clientInfo,
            clientCapabilities: meta.clientCapabilities,
            logThreshold: () => meta.logLevel ?? null,
            scopes: this.scopes,
          }),
        ),
      settle: (outcome, ctx) => {
        // A question the client cannot answer ends the request; otherwise recorded questions win over whatever the
        // handler made of the signal that stopped it.
        if (input?.refusal) throw input.refusal;
        if (input?.pending) {
          return {
            resultType: 'input_required',
            inputRequests: input.requests,
            requestState: codec.seal({ answers: input.used, state: ctx.state.toJSON() }, bindingOf()),
            _meta: this.serverMeta,
          };
        }
        if (!outcome.ok) throw modernError(outcome.error);
        return this.complete(outcome.result);
      },
    };
  }

  // A complete result carries the server's info; a constant result (a cached list page) is completed once.
  private complete(result: Record<string, unknown>): Record<string, unknown> {
    const constant = isConstant(result);
    const known = constant ? this.completed.get(result) : undefined;
    if (known) return known;
    // Most results carry no _meta of their own: they share one (never mutated), rather than a computed-key literal each.
    const own = result._meta;
    const _meta = typeof own === 'object' && own !== null ? Object.assign({}, own, this.serverMeta) : this.serverMeta;
    // Object.assign, not `{ ...x, key }`: on Node 20 a spread followed by keys takes V8's slow path (bench/README.md).
    const completed: Record<string, unknown> = Object.assign({}, result, {
      resultType: result.resultType ?? 'complete',
      _meta,
    });
    if (constant) this.completed.set(result, markConstant(completed));
    return completed;
  }
}

/** In this era a missing resource is -32602 (it was -32002). */
function modernError(error: unknown): unknown {
  if (error instanceof McpError && error.code === ErrorCode.ResourceNotFound)
    return new McpError(ErrorCode.InvalidParams, error.message, error.data);
  return error;
}
