import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  ErrorCode,
  JsonRpcId,
  JsonRpcRequest,
  JsonRpcResponse,
  McpError,
  classifyMessage,
  errorResponse,
  eraOf,
  methodNotFound,
  sanitizeText,
  DEFAULT_HTTP_REVISION,
} from '@conduit-mcp/core';
import { LegacyInput } from '../context/legacy-input';
import { McpRequestContext } from '../context/mcp-request-context';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { DEFAULT_INPUT_TIMEOUT_MS, DEFAULT_MAX_IN_FLIGHT } from '../mcp.constants';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { McpRegistry } from '../registry/mcp.registry';
import { McpTelemetry } from '../telemetry/mcp.telemetry';
import { DispatchOrigin } from './dispatch-origin.interface';
import { toMcpError } from './error.mapper';
import { McpParams, McpRequestRoute } from './mcp-route.interface';
import { McpRoutes } from './mcp.routes';

/**
 * The single entry point of every transport: classifies a message, routes it through the routing table, tracks the
 * request for cancellation, maps failures to JSON-RPC errors and publishes request telemetry.
 */
@Injectable()
export class McpDispatcher {
  private readonly logger = new Logger('McpDispatcher');

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly routes: McpRoutes,
    private readonly registry: McpRegistry,
    private readonly telemetry: McpTelemetry,
  ) {}

  async handle(message: unknown, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined> {
    const classified = classifyMessage(message);
    switch (classified.kind) {
      case 'invalid':
        return errorResponse(classified.id, classified.error);
      case 'response':
        origin.session.resolveResponse(classified.message);
        return undefined;
      case 'notification':
        this.notify(classified.message.method, classified.message.params ?? {}, origin);
        return undefined;
      case 'request':
        return this.request(classified.message, origin);
    }
  }

  private notify(method: string, params: McpParams, origin: DispatchOrigin): void {
    const route = this.routes.table.get(method);
    if (route?.kind !== 'notification') return;
    try {
      route.run(params, origin);
    } catch (error) {
      this.logger.warn(`Notification ${sanitizeText(method)} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async request(request: JsonRpcRequest, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined> {
    const started = performance.now();
    const { session } = origin;
    const revision = session.revision ?? DEFAULT_HTTP_REVISION;
    const era = eraOf(revision);
    const report = (status: 'ok' | 'error' | 'cancelled', errorCode?: number) =>
      this.telemetry.request({
        server: this.options.name,
        method: sanitizeText(request.method, 128),
        status,
        errorCode,
        durationMs: McpTelemetry.since(started),
        transport: origin.transport,
        era,
      });
    const fail = (error: McpError) => {
      report('error', error.code);
      return errorResponse(request.id, error);
    };

    const route = this.routes.table.get(request.method);
    if (route?.kind !== 'request' || !route.eras.includes(era) || !this.supports(route)) {
      return fail(methodNotFound(sanitizeText(request.method, 128)));
    }
    if (session.inFlightCount >= (this.options.maxInFlightPerSession ?? DEFAULT_MAX_IN_FLIGHT)) {
      return fail(new McpError(ErrorCode.ServerError, 'Too many requests in flight for this session'));
    }
    const controller = session.beginRequest(request.id);
    if (!controller) return fail(new McpError(ErrorCode.InvalidRequest, 'A request with this id is already in flight'));

    const ctx = this.context(request, origin, controller.signal, revision);
    try {
      const result = await route.run(request.params ?? {}, ctx, origin);
      if (controller.signal.aborted) return this.cancelled(report);
      report('ok');
      return { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      if (controller.signal.aborted) return this.cancelled(report);
      return fail(toMcpError(error));
    } finally {
      session.endRequest(request.id, controller);
    }
  }

  /** A cancelled request gets no response, per the specification. */
  private cancelled(report: (status: 'cancelled') => void): undefined {
    report('cancelled');
    return undefined;
  }

  private supports(route: McpRequestRoute): boolean {
    return !route.capability || this.registry.capabilities()[route.capability] !== undefined;
  }

  private context(request: JsonRpcRequest, origin: DispatchOrigin, signal: AbortSignal, revision: string): McpRequestContext {
    const meta = request.params?._meta;
    return new McpRequestContext({
      server: this.options.name,
      method: request.method,
      requestId: request.id as JsonRpcId,
      era: 'legacy',
      protocolVersion: revision,
      session: origin.session,
      stream: origin.stream,
      httpRequest: origin.httpRequest,
      signal,
      meta: meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>) : {},
      input: new LegacyInput(origin.session, origin.stream, signal, this.options.inputTimeoutMs ?? DEFAULT_INPUT_TIMEOUT_MS),
    });
  }
}
