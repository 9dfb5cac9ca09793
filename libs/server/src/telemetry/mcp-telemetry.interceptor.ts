import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { sanitizeText } from '@conduit-mcp/core';
import { Observable } from 'rxjs';
import type { McpRequestContext } from '../context/mcp-request-context';
import type { McpResourceOptions } from '../decorators/mcp-resource.decorator';
import { MCP_CONTEXT_TYPE, MCP_PROMPT_METADATA, MCP_RESOURCE_METADATA, MCP_TOOL_METADATA } from '../mcp.constants';
import { McpCallIdentity, handlerObserved, handlerRunSettled, openHandlerRun, runHandler } from './handler-events';
import { McpHandlerKind } from './mcp.channels';

// The kind of event each handler function yields by its decorator (null: none), read once per function.
const declaredKinds = new WeakMap<Function, McpHandlerKind | null>();

/**
 * Publishes the events of tool, resource and prompt handlers on `node:diagnostics_channel`: the tracing channels
 * `conduit-mcp:tool|resource|prompt` (`McpHandlerTrace`: `start` and `end` around the handler's pipeline, the bound
 * stores entered around it, so that a subscriber can open the handler's parent span; `asyncStart`, `asyncEnd`, `error`
 * once the call's outcome is known) and the plain channels of the same names (`McpHandlerEvent`).
 *
 * Built in: it runs first around every MCP handler — after the guards, before the app's, the class's and the
 * method's interceptors — without being registered (registering it as well changes nothing: it still runs once,
 * first). When nobody listens to a handler's channels the pipeline leaves it out, so it costs nothing.
 *
 * When a method of the server awaits the call (`tools/call`, `resources/read`, `prompts/get`), the run's outcome is
 * the one the client gets — after exception filters and result checks — and is published when the method has it.
 */
@Injectable()
export class McpTelemetryInterceptor implements NestInterceptor {
  /** Whether anyone listens for `kind` events, on the plain channel or the tracing channel. */
  static active(kind: McpHandlerKind): boolean {
    return handlerObserved(kind);
  }

  /**
   * The kind of event a call of `handler` for the request `ctx` yields: that of the request's target (none for a
   * completion), else that of the handler's decorator; undefined for any other handler.
   */
  static kindOf(handler: Function, ctx: unknown): McpHandlerKind | undefined {
    const target = (ctx as Partial<McpRequestContext> | undefined)?.target;
    if (target) return target.kind === 'completion' ? undefined : target.kind;
    return declaredKind(handler);
  }

  /** Whether a call of `handler` for the request `ctx` is listened to now (else the pipeline leaves this out). */
  static observes(handler: Function, ctx: unknown): boolean {
    const kind = McpTelemetryInterceptor.kindOf(handler, ctx);
    return kind !== undefined && handlerObserved(kind);
  }

  /** Whether `handler` is a tool, resource or prompt handler, which this interceptor runs first around. */
  static traces(handler: Function): boolean {
    return declaredKind(handler) !== undefined;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType<string>() !== MCP_CONTEXT_TYPE) return next.handle();
    const handler = context.getHandler();
    const ctx = context.getArgByIndex<McpRequestContext | undefined>(1);
    const kind = McpTelemetryInterceptor.kindOf(handler, ctx);
    if (!kind || typeof ctx !== 'object' || ctx === null || !handlerObserved(kind)) return next.handle();
    const identity = identityOf(kind, handler, ctx);
    // One run per subscription: the pipeline starts when subscribed to.
    return new Observable((subscriber) => {
      const run = openHandlerRun(kind, identity, ctx);
      if (!run) return next.handle().subscribe(subscriber); // already traced: registered twice
      let last: unknown;
      let settled = false;
      // A pipeline that settles while it is being subscribed to is settled after `end`, as the tracing contract says.
      let early: Parameters<typeof handlerRunSettled>[2] | undefined;
      let subscribing = true;
      const settle = (settlement: Parameters<typeof handlerRunSettled>[2]) => {
        settled = true;
        if (subscribing) early = settlement;
        else handlerRunSettled(run, ctx, settlement);
      };
      const inner = runHandler(run, () =>
        next.handle().subscribe({
          next: (value) => {
            last = value;
            subscriber.next(value);
          },
          error: (error: unknown) => {
            settle({ error });
            subscriber.error(error);
          },
          complete: () => {
            settle({ result: last });
            subscriber.complete();
          },
        }),
      );
      subscribing = false;
      if (early) handlerRunSettled(run, ctx, early);
      return () => {
        inner.unsubscribe();
        if (!settled) settle({ abandoned: true });
      };
    });
  }
}

function declaredKind(handler: Function): McpHandlerKind | undefined {
  let kind = declaredKinds.get(handler);
  if (kind === undefined) {
    kind = Reflect.getMetadata(MCP_TOOL_METADATA, handler)
      ? 'tool'
      : Reflect.getMetadata(MCP_RESOURCE_METADATA, handler)
        ? 'resource'
        : Reflect.getMetadata(MCP_PROMPT_METADATA, handler)
          ? 'prompt'
          : null;
    declaredKinds.set(handler, kind);
  }
  return kind ?? undefined;
}

// The server, and the tool, prompt or resource: the request's target (set by the method), else the decorator's.
function identityOf(kind: McpHandlerKind, handler: Function, ctx: McpRequestContext): McpCallIdentity {
  const targeted = ctx.target?.kind === kind ? ctx.target.name : undefined;
  if (kind === 'resource') {
    const { uri } = (Reflect.getMetadata(MCP_RESOURCE_METADATA, handler) ?? {}) as Partial<McpResourceOptions>;
    const template = uri?.includes('{') ? uri : undefined;
    return { server: ctx.server, name: sanitizeText(targeted ?? uri ?? handler.name, 512), template };
  }
  const declared = Reflect.getMetadata(kind === 'tool' ? MCP_TOOL_METADATA : MCP_PROMPT_METADATA, handler) as
    { name?: string } | undefined;
  return { server: ctx.server, name: targeted ?? declared?.name ?? handler.name };
}
