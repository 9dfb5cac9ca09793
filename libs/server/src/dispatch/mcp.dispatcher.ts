import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  Era,
  ErrorCode,
  JsonRpcRequest,
  JsonRpcResponse,
  McpError,
  ClassifiedMessage,
  classifyMessage,
  decideEra,
  errorResponse,
  methodNotFound,
  sanitizeText,
  TokenBucket,
} from '@conduit-mcp/core';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { DEFAULT_MAX_IN_FLIGHT } from '../mcp.constants';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { McpRegistry } from '../registry/mcp.registry';
import { McpTelemetry } from '../telemetry/mcp.telemetry';
import { McpRequestTrace } from '../telemetry/mcp.channels';
import {
  refusedRequest,
  requestTraceOf,
  requestTraced,
  runTracedRequest,
  settleRequest,
} from '../telemetry/request-events';
import { McpEventBus } from '../events/mcp-event.bus';
import { DispatchOrigin } from './dispatch-origin.interface';
import { EraPlan, RouteOutcome } from './era-engine.interface';
import { toWireError } from './error.mapper';
import { InFlightRequests, shuttingDown } from './in-flight.requests';
import { LegacyEra } from '../eras/legacy/legacy.era';
import { ModernEra } from '../eras/modern/modern.era';
import { McpParams, McpRequestRoute } from './mcp-route.interface';
import { McpRoutes } from './mcp.routes';

/** Debug logs of unknown notifications: a burst of 10, then one every 6 s (10 a minute), for all methods together. */
const UNKNOWN_NOTIFICATION_LOGS = { rate: 10 / 60, burst: 10 };

/**
 * The single entry point of every transport: classifies a message, routes it through the routing table, tracks the
 * request for cancellation, maps failures to JSON-RPC errors and publishes request telemetry.
 */
@Injectable()
export class McpDispatcher {
  private readonly logger = new Logger('McpDispatcher');
  /** Notifications without a handler are logged (debug) at most this often, whatever a client floods in. */
  private readonly unknownNotifications = new TokenBucket(UNKNOWN_NOTIFICATION_LOGS);

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly routes: McpRoutes,
    private readonly registry: McpRegistry,
    private readonly telemetry: McpTelemetry,
    private readonly legacy: LegacyEra,
    private readonly modern: ModernEra,
    @Inject(McpEventBus) private readonly bus: McpEventBus,
    private readonly inFlight: InFlightRequests,
  ) {}

  handle(message: unknown, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined> {
    return this.handleClassified(classifyMessage(message), origin);
  }

  /** `handle` for a message a transport already classified (the classified message is a fresh copy already). */
  async handleClassified(classified: ClassifiedMessage, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined> {
    switch (classified.kind) {
      case 'invalid':
        return errorResponse(classified.id, classified.error);
      case 'response':
        // An answer nothing waits for here may answer a request of this session that runs on another instance.
        if (!origin.session.resolveResponse(classified.message) && origin.session.persistent) {
          const event = { type: 'client-response', server: this.options.name, sessionId: origin.session.id } as const;
          this.bus.publish({ ...event, response: classified.message }).catch(() => undefined);
        }
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
    if (route?.kind !== 'notification') {
      // Ignored, as the specification allows; logged for whoever debugs a client, a few times a minute at most.
      if (this.unknownNotifications.tryTake())
        this.logger.debug(`Ignored notification ${sanitizeText(method, 128)}: no handler for it`);
      return;
    }
    try {
      route.run(params, { server: this.options.name, method, session: origin.session, transport: origin.facts });
    } catch (error) {
      this.logger.warn(
        `Notification ${sanitizeText(method)} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  private async request(request: JsonRpcRequest, origin: DispatchOrigin): Promise<JsonRpcResponse | undefined> {
    const started = performance.now();
    const { session } = origin;
    const route = this.routes.table.get(request.method);
    // Core's one era decision: the transport's hint, the request's `_meta`, a method only the modern era has.
    let era: Era = decideEra(request.params, origin.facts.era, route !== undefined && !route.eras.includes('legacy'));

    let plan: EraPlan;
    try {
      plan = (era === 'modern' ? this.modern : this.legacy).plan(request, origin);
    } catch (error) {
      return this.fail(request, origin, era, started, toWireError(error));
    }
    era = plan.era;
    if (route?.kind !== 'request' || !route.eras.includes(era) || !this.supports(route)) {
      return this.fail(request, origin, era, started, methodNotFound(sanitizeText(request.method, 128)));
    }
    if (this.inFlight.closing) return this.fail(request, origin, era, started, shuttingDown());
    if (session.inFlightCount >= (this.options.maxInFlightPerSession ?? DEFAULT_MAX_IN_FLIGHT)) {
      return this.fail(
        request,
        origin,
        era,
        started,
        new McpError(ErrorCode.ServerError, 'Too many requests in flight for this session'),
      );
    }
    const cancellation = session.beginRequest(request.id);
    if (!cancellation) {
      return this.fail(
        request,
        origin,
        era,
        started,
        new McpError(ErrorCode.InvalidRequest, 'A request with this id is already in flight'),
      );
    }
    this.inFlight.began(session);

    let trace: McpRequestTrace | undefined;
    try {
      const ctx = plan.context(cancellation);
      const params = request.params ?? {};
      let outcome: RouteOutcome;
      try {
        if (requestTraced()) {
          trace = this.traceOf(request, origin, era, true, plan.revision);
          outcome = { ok: true, result: await runTracedRequest(trace, ctx, () => route.run(params, ctx)) };
        } else {
          outcome = { ok: true, result: await route.run(params, ctx) };
        }
      } catch (error) {
        outcome = { ok: false, error };
      }
      if (cancellation.aborted) return this.aborted(request, origin, era, started, trace);
      const result = plan.settle(outcome, ctx);
      this.report(request, origin, era, started, 'ok', undefined, trace);
      return { jsonrpc: '2.0', id: request.id, result };
    } catch (error) {
      if (cancellation.aborted) return this.aborted(request, origin, era, started, trace);
      return this.fail(request, origin, era, started, toWireError(error), trace);
    } finally {
      session.endRequest(request.id, cancellation);
      this.inFlight.ended(session);
    }
  }

  private fail(
    request: JsonRpcRequest,
    origin: DispatchOrigin,
    era: Era,
    started: number,
    error: McpError,
    trace?: McpRequestTrace,
  ): JsonRpcResponse {
    this.report(request, origin, era, started, 'error', error.code, trace);
    return errorResponse(request.id, error);
  }

  // Cancelled by the client, or by the end of its session: no response, per the specification. Cancelled because the
  // server shuts down: the client did not ask for it, so it is told why (an HTTP reply may still carry it).
  private aborted(
    request: JsonRpcRequest,
    origin: DispatchOrigin,
    era: Era,
    started: number,
    trace: McpRequestTrace | undefined,
  ): JsonRpcResponse | undefined {
    if (this.inFlight.closing && origin.session.closed) {
      return this.fail(request, origin, era, started, shuttingDown(), trace);
    }
    this.report(request, origin, era, started, 'cancelled', undefined, trace);
    return undefined;
  }

  // Methods rather than closures per request: a request's telemetry event exists only when someone observes it.
  private report(
    request: JsonRpcRequest,
    origin: DispatchOrigin,
    era: Era,
    started: number,
    status: 'ok' | 'error' | 'cancelled',
    errorCode?: number,
    trace?: McpRequestTrace,
  ): void {
    if (trace || requestTraced()) {
      // A request refused before its route opens its trace here, its start and end back to back.
      if (!trace) {
        const routed = errorCode !== ErrorCode.MethodNotFound && this.routes.table.get(request.method) !== undefined;
        refusedRequest((trace = this.traceOf(request, origin, era, routed, origin.session.revision)));
      }
      // `initialize` is planned at a default revision; the session has the one it negotiated.
      if (trace.era === 'legacy' && origin.session.revision !== undefined) {
        trace.protocolVersion = origin.session.revision;
      }
      settleRequest(trace, status, errorCode, McpTelemetry.since(started));
    }
    if (!this.telemetry.observed('request')) return;
    this.telemetry.request({
      server: this.options.name,
      method: sanitizeText(request.method, 128),
      status,
      errorCode,
      durationMs: McpTelemetry.since(started),
      transport: origin.facts.kind,
      era,
    });
  }

  private traceOf(
    request: JsonRpcRequest,
    origin: DispatchOrigin,
    era: Era,
    routed: boolean,
    protocolVersion: string | undefined,
  ): McpRequestTrace {
    const { session } = origin;
    return requestTraceOf({
      server: this.options.name,
      method: request.method,
      routed,
      era,
      protocolVersion,
      transport: origin.facts.kind,
      id: request.id,
      // The modern era has no sessions: a modern request on a legacy connection is not part of its session.
      sessionId: era === 'legacy' && session.persistent ? session.id : undefined,
      meta: request.params?._meta,
    });
  }

  private supports(route: McpRequestRoute): boolean {
    return !route.capability || this.registry.capabilities()[route.capability] !== undefined;
  }
}
