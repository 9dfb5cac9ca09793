import { Inject, Injectable, Logger } from '@nestjs/common';
import { ClientCapabilities, ErrorCode, jsonSizeUpTo, sanitizeText } from '@conduit-mcp/core';
import {
  McpClientNotificationContext,
  McpInputContext,
  McpInputMethod,
  McpInputRefusal,
  McpInputResponder,
  McpInputSituation,
  McpServerMessageContext,
} from '../connection/input-responder.interface';
import { ClientHandlers, QuestionKind } from '../handlers/client-handlers';
import { McpClientModuleOptions } from '../interfaces/mcp-client-options.interface';
import { MCP_CLIENT_OPTIONS } from '../mcp-client.module-definition';
import { LogLimiter } from '../notifications/log.limiter';
import { sanitizeLogParams } from '../notifications/log-entry.sanitizer';
import { NotificationQueue } from '../notifications/notification.queue';
import { samplingOptions } from '../safety/sampling.check';

interface QueuedNotification {
  params: Record<string, unknown>;
  ctx: McpClientNotificationContext;
}

const KIND: Readonly<Record<McpInputMethod, QuestionKind>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/**
 * Answers servers' questions through the decorated handlers — each wrapped with its kind's checks (the input budget,
 * then the request checks, the handler, the answer checks: see `safety/client-checks.ts`) — and hands notifications
 * to `@OnNotification` / `@OnLog` in order, one connection's at a time.
 */
@Injectable()
export class McpClientResponder implements McpInputResponder {
  private readonly logger = new Logger('McpClient');
  private handlers = new ClientHandlers();
  private readonly queues = new Map<string, NotificationQueue<QueuedNotification>>();
  private readonly logLimiters = new Map<string, LogLimiter>();

  constructor(@Inject(MCP_CLIENT_OPTIONS) private readonly options: McpClientModuleOptions) {}

  /** Installs the handlers found at start-up. */
  use(handlers: ClientHandlers): void {
    this.handlers = handlers;
  }

  capabilities(serverId: string): ClientCapabilities {
    const capabilities: ClientCapabilities = {};
    if (this.handlers.question('sampling', serverId)) capabilities.sampling = {};
    const elicitation = this.handlers.question('elicitation', serverId);
    if (elicitation) capabilities.elicitation = Object.fromEntries(elicitation.modes.map((mode) => [mode, {}]));
    if (this.handlers.question('roots', serverId)) capabilities.roots = {};
    return capabilities;
  }

  async answer(
    method: McpInputMethod,
    params: Record<string, unknown>,
    situation: McpInputSituation,
  ): Promise<Record<string, unknown>> {
    const kind = KIND[method];
    const handler = this.handlers.question(kind, situation.serverId);
    // Capabilities come from the handlers, so a server asking anyway asks for something it was never offered.
    if (!handler)
      throw new McpInputRefusal(
        ErrorCode.MethodNotFound,
        `This client does not handle ${kind} for server ${situation.serverId}`,
      );
    const ctx: McpInputContext = { ...situation, method };
    try {
      return (await handler.invoke(method === 'roots/list' ? {} : params, ctx)) as Record<string, unknown>;
    } catch (error) {
      throw this.refusalOf(error, method) ?? error;
    }
  }

  notify(method: string, params: Record<string, unknown>, server: McpServerMessageContext): void {
    if (method === 'notifications/message') {
      if (!this.logLimiter(server.serverId).allow()) return;
      params = sanitizeLogParams(params) as unknown as Record<string, unknown>;
    }
    const ctx = { client: server.client, serverId: server.serverId, era: server.era, method };
    if (!this.queue(server.serverId).push({ params, ctx })) {
      this.logger.warn(
        `Dropped a notification of server "${server.serverId}": its queue is full (maxQueuedNotifications, maxQueuedNotificationBytes)`,
      );
    }
  }

  /** Resolves when every queued notification has been handled (tests, shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.drain()));
  }

  /**
   * Nest's refusals as the question's: a guard that said no (`ForbiddenException`) like the built-in checks (sampling
   * with `sampling.rejectionCode`, the other kinds with -32000); a pipe that refused the params (`BadRequestException`,
   * e.g. `ValidationPipe`) with -32602 and its reasons.
   */
  private refusalOf(error: unknown, method: McpInputMethod): McpInputRefusal | undefined {
    const http = error as { getStatus?: () => unknown; getResponse?: () => unknown };
    const status = typeof http.getStatus === 'function' ? http.getStatus() : undefined;
    if (status === 403) {
      const code =
        method === 'sampling/createMessage'
          ? samplingOptions(this.options.sampling).rejectionCode
          : ErrorCode.ServerError;
      return new McpInputRefusal(code, `${method} refused by a guard of this client`);
    }
    if (status === 400) {
      const reasons = (http.getResponse?.() as { message?: unknown } | undefined)?.message;
      const text = Array.isArray(reasons) ? reasons.join('; ') : String(reasons ?? 'invalid params');
      return new McpInputRefusal(ErrorCode.InvalidParams, sanitizeText(`${method} params refused: ${text}`, 512));
    }
    return undefined;
  }

  private queue(serverId: string): NotificationQueue<QueuedNotification> {
    let queue = this.queues.get(serverId);
    if (!queue) {
      queue = new NotificationQueue<QueuedNotification>({
        capacity: this.options.maxQueuedNotifications,
        maxBytes: this.options.maxQueuedNotificationBytes,
        // The params as parsed have no JSON at hand any more: estimated, at most up to the room left.
        sizeOf: (item, room) => jsonSizeUpTo(item.params, room),
        consume: (item) => this.deliver(item),
        onError: (error) =>
          this.logger.warn(
            `A notification handler failed: ${sanitizeText(error instanceof Error ? error.message : String(error))}`,
          ),
      });
      this.queues.set(serverId, queue);
    }
    return queue;
  }

  private logLimiter(serverId: string): LogLimiter {
    let limiter = this.logLimiters.get(serverId);
    if (!limiter) this.logLimiters.set(serverId, (limiter = new LogLimiter(this.options.logRateLimit)));
    return limiter;
  }

  private async deliver({ params, ctx }: QueuedNotification): Promise<void> {
    if (ctx.method === 'notifications/message') {
      for (const handler of this.handlers.logHandlers(ctx.serverId)) await handler.invoke(params, ctx);
    }
    for (const handler of this.handlers.notificationHandlers(ctx.method, ctx.serverId))
      await handler.invoke(params, ctx);
  }
}
