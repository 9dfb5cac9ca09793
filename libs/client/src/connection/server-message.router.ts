import { Era, ErrorCode, JsonRpcId, JsonRpcRequest, META_SUBSCRIPTION_ID, classifyMessage } from '@conduit-mcp/core';
import { McpClientModuleOptions } from '../interfaces/mcp-client-options.interface';
import { reportInput } from '../telemetry/client-telemetry';
import { isSyntheticResponse } from '../transports/synthetic-response';
import { CallTable } from './call-table';
import { ConnectionHost } from './connection.host';
import { ModernEnvelope } from './modern-envelope';
import { INPUT_CAPABILITY, McpInputMethod, McpInputResponder, McpInputSituation } from './input-responder.interface';
import { PendingCall } from './pending-call';
import { ServerRequestRunner } from './server-request.runner';
import { TaskWatches } from './task-watches';

/**
 * Takes what the server sends and hands it on: responses to their calls, legacy server requests through the runner
 * to the responder (a modern server may not ask), progress to its call, the rest of the notifications to the
 * runner, the listen calls, the task awaiters or the responder. Modern input (MRTR) reaches the responder through it
 * as well.
 */
export class ServerMessageRouter {
  constructor(
    private readonly serverId: string,
    private readonly options: Pick<McpClientModuleOptions, 'name' | 'assigns' | 'elicitation'>,
    private readonly host: ConnectionHost,
    private readonly calls: CallTable,
    private readonly runner: ServerRequestRunner,
    private readonly responder: McpInputResponder,
    private readonly envelope: Pick<ModernEnvelope, 'forgetTools'>,
    private readonly tasks: TaskWatches,
  ) {}

  onMessage(raw: unknown, relatedRequestId: JsonRpcId | undefined): void {
    const classified = classifyMessage(raw);
    switch (classified.kind) {
      case 'response':
        return this.calls.onResponse(classified.message, isSyntheticResponse(raw));
      case 'request':
        return this.onServerRequest(classified.message, relatedRequestId);
      case 'notification':
        return this.onNotification(classified.message.method, classified.message.params ?? {});
      case 'invalid':
        return;
    }
  }

  /** Answers one modern input request (an `input_required` round) in the calling flow. */
  answer(
    method: McpInputMethod,
    params: Record<string, unknown>,
    assigns: Record<string, unknown> | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    return reportInput(this.host.eventScope(method), signal, () =>
      this.responder.answer(method, params, this.context('modern', undefined, assigns, signal)),
    );
  }

  private onServerRequest(request: JsonRpcRequest, relatedRequestId: JsonRpcId | undefined): void {
    if (this.host.era() === 'modern') {
      // 2026-07-28 has no server-to-client requests: input comes as input_required results.
      void this.host
        .write({
          jsonrpc: '2.0',
          id: request.id,
          error: { code: ErrorCode.MethodNotFound, message: 'Server requests are not part of the modern era' },
        })
        .catch(() => undefined);
      return;
    }
    // A question of an awaited task that came on no request's stream belongs to the task's tasks/result call. On stdio
    // nothing else names the related call: with exactly one call in flight, it is that one.
    const taskCall = this.tasks.resultCallFor(request.params?._meta);
    const related =
      (relatedRequestId !== undefined ? this.calls.get(relatedRequestId) : undefined) ??
      (taskCall !== undefined ? this.calls.get(taskCall) : undefined) ??
      (this.host.transport()?.origin === undefined ? this.calls.only() : undefined);
    const capability = INPUT_CAPABILITY[request.method as McpInputMethod];
    if (capability && !this.host.capabilities()[capability]) {
      void this.host
        .write({
          jsonrpc: '2.0',
          id: request.id,
          error: { code: ErrorCode.MethodNotFound, message: `This client does not handle ${request.method}` },
        })
        .catch(() => undefined);
      return;
    }
    // A question outlives no call: when the call it belongs to ends, its handler is stopped.
    const stop = () => this.runner.cancel(request.id);
    related?.promise.then(stop, stop);
    this.runner.run(request, async (method, params, signal) => {
      related?.pause();
      try {
        return await reportInput(
          this.host.eventScope(method),
          signal,
          () => this.responder.answer(method, params, this.context('legacy', related, undefined, signal)),
          params._meta,
        );
      } finally {
        related?.resume();
      }
    });
  }

  private onNotification(method: string, params: Record<string, unknown>): void {
    if (method === 'notifications/progress') {
      const call = this.calls.get(params.progressToken as JsonRpcId);
      if (call?.onProgress && typeof params.progress === 'number') {
        call.onProgress({
          progress: params.progress,
          total: params.total as number | undefined,
          message: params.message as string | undefined,
        });
      }
      return;
    }
    if (method === 'notifications/cancelled') return this.runner.cancel(params.requestId as JsonRpcId);
    // Also handed to the responder below: @OnNotification handlers may follow every task.
    if (method === 'notifications/tasks/status') this.tasks.status(params);
    // A changed tool may declare other Mcp-Param-* headers: the next call to a tool lists the tools again.
    if (method === 'notifications/tools/list_changed') this.envelope.forgetTools();
    if (method === 'notifications/subscriptions/acknowledged') {
      const id = (params._meta as Record<string, unknown> | undefined)?.[META_SUBSCRIPTION_ID] as JsonRpcId;
      return this.calls.acknowledge(id, (params.notifications as Record<string, unknown>) ?? {});
    }
    this.responder.notify(method, params, {
      client: this.options.name,
      serverId: this.serverId,
      era: this.host.era() ?? 'legacy',
    });
  }

  private context(
    era: Era,
    related: PendingCall | undefined,
    assigns: Record<string, unknown> | undefined,
    signal?: AbortSignal,
  ): McpInputSituation {
    return {
      client: this.options.name,
      serverId: this.serverId,
      era,
      assigns: assigns ?? related?.assigns ?? this.options.assigns ?? {},
      relatedRequestId: related?.id,
      signal: signal ?? new AbortController().signal,
      callsInFlight: this.calls.size,
      // The configured origin wins: the operator knows the server's public origin behind a proxy or tunnel.
      origin: this.options.elicitation?.origin ?? this.host.transport()?.origin,
    };
  }
}
