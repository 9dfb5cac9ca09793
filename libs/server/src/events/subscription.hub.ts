import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import { JsonRpcId, JsonRpcNotification, META_SUBSCRIPTION_ID, serializeMessage } from '@conduit-mcp/core';
import { McpListKind } from '../registry/registry.types';
import { MessageSink } from '../session/message-sink.interface';
import { BroadcastFanOut } from './broadcast.fanout';

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

/** A broadcast to listen streams: the same notification but for the subscription id each stream is tagged with. */
interface TaggedNotification {
  message(id: JsonRpcId): JsonRpcNotification;
  json(id: JsonRpcId): string;
}

// The subscription id is the last member of the last object of the message: its JSON is serialized once, up to where
// the id goes, and each stream's is that head, its id and the closing braces.
const ID_PLACEHOLDER = 'null}}}';

function taggedNotification(method: string, params: Record<string, unknown>): TaggedNotification {
  const message = (id: JsonRpcId | null): JsonRpcNotification => ({
    jsonrpc: '2.0',
    method,
    params: { ...params, _meta: { [META_SUBSCRIPTION_ID]: id } },
  });
  const head = serializeMessage(message(null)).slice(0, -ID_PLACEHOLDER.length);
  return { message, json: (id) => `${head}${JSON.stringify(id)}}}}` };
}

/**
 * The open `subscriptions/listen` streams of a server (modern era): list changes and resource updates go to the
 * streams that opted in, tagged with their subscription id.
 */
@Injectable()
export class McpSubscriptionHub implements BeforeApplicationShutdown {
  private readonly subscriptions = new Set<Subscription>();
  private readonly fanOut = new BroadcastFanOut();

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

  /** `notifications/<kind>/list_changed` to the streams that opted in, in slices (see {@link BroadcastFanOut}). */
  listChanged(kind: McpListKind): void {
    const filter = LIST_FILTER[kind];
    const tagged = taggedNotification(`notifications/${kind}/list_changed`, {});
    this.fanOut.add(
      this.subscriptions,
      (subscription) => !!subscription.filter[filter] && this.sendTagged(subscription, tagged),
    );
  }

  /** `notifications/resources/updated` to the streams watching `uri`, in slices (see {@link BroadcastFanOut}). */
  resourceUpdated(uri: string): void {
    const tagged = taggedNotification('notifications/resources/updated', { uri });
    this.fanOut.add(
      this.subscriptions,
      (subscription) => subscription.resources.has(uri) && this.sendTagged(subscription, tagged),
    );
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

  private sendTagged(subscription: Subscription, tagged: TaggedNotification): boolean {
    const message = tagged.message(subscription.id);
    return subscription.sink.send(message, tagged.json(subscription.id));
  }

  private send(subscription: Subscription, method: string, params: Record<string, unknown>): boolean {
    return subscription.sink.send({
      jsonrpc: '2.0',
      method,
      params: { ...params, _meta: { [META_SUBSCRIPTION_ID]: subscription.id } },
    });
  }
}
