import { Inject, Injectable } from '@nestjs/common';
import {
  ClientCapabilities,
  Implementation,
  InitializeResult,
  LOGGING_LEVELS,
  LoggingLevel,
  McpError,
  ErrorCode,
  invalidParams,
  negotiateLegacyRevision,
  sanitizeText,
} from '@conduit-mcp/core';
import { principalOf } from '../auth/auth-principal';
import { McpNotificationContext } from '../context/mcp-notification-context';
import { McpParams } from '../dispatch/mcp-route.interface';
import { McpRequestContext, invocationOf } from '../context/mcp-request-context';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { McpRegistry } from '../registry/mcp.registry';
import { LEGACY_TASKS_CAPABILITY, offersLegacyTasks } from '../tasks/task-extension';
import { LiveSessions } from '../session/live-sessions';
import { McpEventBus } from '../events/mcp-event.bus';
import { serverInfoOf } from '../server-info';
import { McpTelemetry } from '../telemetry/mcp.telemetry';
import { echo, optionalObject, requireString } from './params';

/** `initialize`, `ping`, `logging/setLevel` and the lifecycle notifications. */
@Injectable()
export class LifecycleMethods {
  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly registry: McpRegistry,
    private readonly telemetry: McpTelemetry,
    private readonly sessions: LiveSessions,
    @Inject(McpEventBus) private readonly bus: McpEventBus,
  ) {}

  async initialize(params: McpParams, ctx: McpRequestContext): Promise<InitializeResult> {
    const requested = requireString(params, 'protocolVersion');
    const clientCapabilities = optionalObject(params, 'capabilities') as ClientCapabilities;
    const clientInfo = optionalObject(params, 'clientInfo');
    if (typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') {
      throw invalidParams('Missing or invalid "clientInfo": name and version are required');
    }
    const { session, auth } = invocationOf(ctx);
    if (session.revision && session.persistent)
      throw new McpError(ErrorCode.InvalidRequest, 'Session already initialized');
    session.revision = negotiateLegacyRevision(requested);
    session.clientCapabilities = clientCapabilities;
    session.clientInfo = clientInfo as unknown as Implementation;
    session.principal = principalOf(auth);
    // A session already live here (stdio) has a record to update; an HTTP one gets its record when it is adopted.
    this.sessions.save(session, {
      revision: session.revision,
      clientCapabilities: session.clientCapabilities,
      clientInfo: session.clientInfo,
    });
    const capabilities = this.registry.capabilities();
    const result: InitializeResult = {
      protocolVersion: session.revision,
      capabilities: offersLegacyTasks(session, this.registry.servesTasks)
        ? { ...capabilities, tasks: LEGACY_TASKS_CAPABILITY }
        : capabilities,
      serverInfo: serverInfoOf(this.options),
    };
    if (this.options.instructions) result.instructions = this.options.instructions;
    return result;
  }

  initialized(_params: McpParams, ctx: McpNotificationContext): void {
    ctx.session.initialized = true;
    this.sessions.save(ctx.session, { initialized: true });
  }

  async ping(): Promise<Record<string, never>> {
    return {};
  }

  async setLevel(params: McpParams, ctx: McpRequestContext): Promise<Record<string, never>> {
    const level = params.level;
    if (typeof level !== 'string' || !(LOGGING_LEVELS as readonly string[]).includes(level)) {
      throw invalidParams(`Invalid log level: ${echo(level)}`);
    }
    const { session } = invocationOf(ctx);
    session.logLevel = level as LoggingLevel;
    this.sessions.save(session, { logLevel: session.logLevel });
    return {};
  }

  cancelled(params: McpParams, ctx: McpNotificationContext): void {
    const { requestId, reason } = params;
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
    const safeReason = typeof reason === 'string' ? sanitizeText(reason) : undefined;
    const { session } = ctx;
    const found = session.cancelRequest(requestId, safeReason ?? 'Cancelled by the client');
    this.telemetry.cancelled({ server: this.options.name, requestId: echo(requestId), reason: safeReason, found });
    // Not running here: it may run on another instance serving the same session.
    if (!found && session.persistent) {
      const event = { type: 'cancelled', server: this.options.name, sessionId: session.id, requestId } as const;
      this.bus.publish(safeReason === undefined ? event : { ...event, reason: safeReason }).catch(() => undefined);
    }
  }
}
