import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { JsonRpcId, META_SUBSCRIPTION_ID } from '@conduit-mcp/core';
import { McpListKind } from '../registry/registry.types';
import { MessageSink } from '../session/message-sink.interface';

/** What a `subscriptions/listen` stream opted in to (and what the server agreed to honour). */
export interface SubscriptionFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  resourceSubscriptions?: string[];
  /** Tasks whose status changes the stream follows (the tasks extension). */
  taskIds?: string[];
}

interface Subscription {
  id: JsonRpcId;
  filter: SubscriptionFilter;
  resources: Set<string>;
  tasks: Set<string> | undefined;
  /** Who opened it: only that owner's tasks reach it. */
  owner: string;
  sink: MessageSink;
  /** Ends the subscription gracefully (server shutdown). */
  end: () => void;
}

const LIST_FILTER: Record<McpListKind, keyof SubscriptionFilter> = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
};

/**
 * The open `subscriptions/listen` streams of a server (modern era): list changes and resource updates go to the
 * streams that opted in, tagged with their subscription id.
 */
@Injectable()
export class McpSubscriptionHub implements BeforeApplicationShutdown {
  private readonly subscriptions = new Set<Subscription>();

  get size(): number {
    return this.subscriptions.size;
  }

  /** Registers a stream; returns its removal. `end` is called if the server ends the subscription first. */
  add(id: JsonRpcId, filter: SubscriptionFilter, owner: string, sink: MessageSink, end: () => void): () => void {
    const subscription: Subscription = {
      id,
      filter,
      resources: new Set(filter.resourceSubscriptions ?? []),
      tasks: filter.taskIds?.length ? new Set(filter.taskIds) : undefined,
      owner,
      sink,
      end,
    };
    this.subscriptions.add(subscription);
    return () => this.subscriptions.delete(subscription);
  }

  listChanged(kind: McpListKind): void {
    for (const subscription of this.subscriptions) {
      if (subscription.filter[LIST_FILTER[kind]]) this.send(subscription, `notifications/${kind}/list_changed`, {});
    }
  }

  resourceUpdated(uri: string): number {
    let sent = 0;
    for (const subscription of this.subscriptions) {
      if (subscription.resources.has(uri) && this.send(subscription, 'notifications/resources/updated', { uri }))
        sent++;
    }
    return sent;
  }

  /** A task changed status: `notifications/tasks` (the task as `tasks/get` shows it) to the streams following it. */
  taskChanged(owner: string, taskId: string, task: () => Record<string, unknown>): void {
    let params: Record<string, unknown> | undefined;
    for (const subscription of this.subscriptions) {
      if (subscription.owner === owner && subscription.tasks?.has(taskId))
        this.send(subscription, 'notifications/tasks', (params ??= task()));
    }
  }

  /**
   * Ends every subscription with a result (graceful closure) while the HTTP server still carries responses; waits a
   * turn of the event loop so that those results are written before the server closes.
   */
  async beforeApplicationShutdown(): Promise<void> {
    if (!this.subscriptions.size) return;
    for (const subscription of [...this.subscriptions]) subscription.end();
    this.subscriptions.clear();
    await new Promise((resolve) => setImmediate(resolve));
  }

  private send(subscription: Subscription, method: string, params: Record<string, unknown>): boolean {
    return subscription.sink.send({
      jsonrpc: '2.0',
      method,
      params: { ...params, _meta: { [META_SUBSCRIPTION_ID]: subscription.id } },
    });
  }
}
