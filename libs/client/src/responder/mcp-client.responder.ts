import { Inject, Injectable, Logger } from '@nestjs/common';
import { ClientCapabilities, ErrorCode, LoggingLevel, SchemaValidator, sanitizeText } from '@conduit-mcp/core';
import {
  McpInputContext,
  McpInputMethod,
  McpInputRefusal,
  McpInputResponder,
} from '../connection/input-responder.interface';
import { ClientHandlers } from '../discovery/client-handlers';
import { McpClientModuleOptions } from '../interfaces/mcp-client-options.interface';
import { MCP_CLIENT_OPTIONS } from '../mcp-client.module-definition';
import { LogLimiter } from '../notifications/log.limiter';
import { sanitizeLogParams } from '../notifications/log-entry.sanitizer';
import { NotificationQueue } from '../notifications/notification.queue';
import { Checked } from '../safety/checked';
import { checkElicitationAnswer, checkElicitationRequest } from '../safety/elicitation.check';
import { InputBudget } from '../safety/input.budget';
import { filterRoots } from '../safety/roots.filter';
import { DEFAULT_SAMPLING_OPTIONS, checkSamplingRequest, checkSamplingResult } from '../safety/sampling.check';

type NotificationContext = Pick<McpInputContext, 'client' | 'serverId' | 'era'>;

interface QueuedNotification {
  method: string;
  params: Record<string, unknown>;
  ctx: NotificationContext;
}

/**
 * Answers servers' questions through the decorated handlers, with the library's safety checks around each (the
 * input budget, then the checks of the question's kind before the handler and of its answer after), and hands
 * notifications to `@OnNotification` / `@OnLog` in order, one connection's at a time.
 */
@Injectable()
export class McpClientResponder implements McpInputResponder {
  private readonly logger = new Logger('McpClient');
  private handlers = new ClientHandlers();
  private readonly budget: InputBudget;
  private readonly schemas = new SchemaValidator();
  private readonly queues = new Map<string, NotificationQueue<QueuedNotification>>();
  private readonly logLimiters = new Map<string, LogLimiter>();

  constructor(@Inject(MCP_CLIENT_OPTIONS) private readonly options: McpClientModuleOptions) {
    this.budget = new InputBudget(options.inputRateLimit);
  }

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
    ctx: McpInputContext,
  ): Promise<Record<string, unknown>> {
    const sampling = { ...DEFAULT_SAMPLING_OPTIONS, ...this.options.sampling };
    if (!this.budget.tryTake(ctx.serverId)) {
      throw new McpInputRefusal(
        method === 'sampling/createMessage' ? sampling.rejectionCode : ErrorCode.ServerError,
        'Too many requests for input from this server',
      );
    }
    switch (method) {
      case 'sampling/createMessage': {
        const handler = this.require('sampling', ctx);
        const request = passed(
          checkSamplingRequest(params, sampling, { era: ctx.era, callsInFlight: ctx.callsInFlight }),
        );
        return passed(checkSamplingResult(await handler.invoke(request, ctx))) as unknown as Record<string, unknown>;
      }
      case 'elicitation/create': {
        const handler = this.require('elicitation', ctx);
        const checked = passed(
          checkElicitationRequest(params, (handler as { modes: Array<'form' | 'url'> }).modes, ctx.origin, ctx.era),
        );
        const answer = await handler.invoke(checked.params, { ...ctx, ...checked.context });
        return passed(checkElicitationAnswer(checked.params, answer, this.schemas)) as unknown as Record<
          string,
          unknown
        >;
      }
      case 'roots/list': {
        const handler = this.require('roots', ctx);
        return passed(filterRoots(await handler.invoke(ctx))) as unknown as Record<string, unknown>;
      }
    }
  }

  notify(method: string, params: Record<string, unknown>, ctx: NotificationContext): void {
    if (method === 'notifications/message') {
      if (!this.logLimiter(ctx.serverId).allow()) return;
      params = sanitizeLogParams(params) as unknown as Record<string, unknown>;
    }
    if (!this.queue(ctx.serverId).push({ method, params, ctx })) {
      this.logger.warn(`Dropped a notification of server "${ctx.serverId}": its queue is full`);
    }
  }

  /** Resolves when every queued notification has been handled (tests, shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.queues.values()].map((queue) => queue.drain()));
  }

  private require(kind: 'sampling' | 'elicitation' | 'roots', ctx: McpInputContext) {
    const handler = this.handlers.question(kind, ctx.serverId);
    // Capabilities come from the handlers, so a server asking anyway asks for something it was never offered.
    if (!handler)
      throw new McpInputRefusal(
        ErrorCode.MethodNotFound,
        `This client does not handle ${kind} for server ${ctx.serverId}`,
      );
    return handler;
  }

  private queue(serverId: string): NotificationQueue<QueuedNotification> {
    let queue = this.queues.get(serverId);
    if (!queue) {
      queue = new NotificationQueue<QueuedNotification>({
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

  private async deliver({ method, params, ctx }: QueuedNotification): Promise<void> {
    if (method === 'notifications/message') {
      for (const handler of this.handlers.logHandlers(ctx.serverId))
        await handler.invoke(params.level as LoggingLevel, params, ctx);
    }
    for (const handler of this.handlers.notificationHandlers(method, ctx.serverId))
      await handler.invoke(method, params, ctx);
  }
}

/** The checked value, or the refusal thrown. */
function passed<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new McpInputRefusal(checked.error.code, checked.error.message);
  return checked.value;
}
