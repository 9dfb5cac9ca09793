import { Inject, Injectable } from '@nestjs/common';
import { ErrorCode, McpError, META_SUBSCRIPTION_ID, invalidParams } from '@conduit-mcp/core';
import { McpRequestContext, invocationOf } from '../context/mcp-request-context';
import { McpParams } from '../dispatch/mcp-route.interface';
import { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { DEFAULT_MAX_SUBSCRIPTIONS, MAX_URI_LENGTH } from '../mcp.constants';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition';
import { McpRegistry } from '../registry/mcp.registry';
import { McpSubscriptionHub, SubscriptionFilter } from '../events/subscription.hub';
import { McpTaskRunner } from '../tasks/mcp-task.runner';
import { declaresTasks, taskOwnerOf, tasksExtensionRequired } from '../tasks/task-extension';
import { McpScopePolicy } from '../auth/scope.policy';

/** Most resource URIs, and most tasks, one stream may watch. */
const MAX_RESOURCES_PER_STREAM = 1_000;
const MAX_TASKS_PER_STREAM = 1_000;

/** `subscriptions/listen` (modern era): a long-lived stream of the change notifications the client opted in to. */
@Injectable()
export class SubscriptionMethods {
  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly registry: McpRegistry,
    private readonly hub: McpSubscriptionHub,
    private readonly runner: McpTaskRunner,
    private readonly scopes: McpScopePolicy,
  ) {}

  async listen(params: McpParams, ctx: McpRequestContext): Promise<Record<string, unknown>> {
    const requested = this.filter(params.notifications, ctx);
    const sink = invocationOf(ctx).ownStream;
    if (!sink || sink.closed) throw new McpError(ErrorCode.ServerError, 'No stream to deliver notifications on');
    if (this.hub.size >= (this.options.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS)) {
      throw new McpError(ErrorCode.ServerError, 'Too many open subscriptions');
    }
    const owner = taskOwnerOf(ctx);
    const agreed = await this.agree(requested, owner);
    const id = ctx.requestId;
    // The acknowledgement is the first message tagged with this subscription's id.
    sink.send({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [META_SUBSCRIPTION_ID]: id }, notifications: agreed },
    });
    await new Promise<void>((resolve, reject) => {
      if (ctx.signal.aborted) return reject(ctx.signal.reason);
      const remove = this.hub.add(id, agreed, owner, sink, resolve);
      ctx.signal.addEventListener('abort', () => (remove(), reject(ctx.signal.reason)), { once: true });
    });
    // The server ended the subscription (shutdown): a result tells the client it ended gracefully.
    return { _meta: { [META_SUBSCRIPTION_ID]: id } };
  }

  private filter(value: unknown, ctx: McpRequestContext): SubscriptionFilter {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw invalidParams('Missing or invalid "notifications" filter');
    const filter = value as Record<string, unknown>;
    for (const key of ['toolsListChanged', 'promptsListChanged', 'resourcesListChanged']) {
      if (filter[key] !== undefined && typeof filter[key] !== 'boolean')
        throw invalidParams(`"notifications.${key}" must be a boolean`);
    }
    const uris = filter.resourceSubscriptions;
    if (uris !== undefined) {
      if (!Array.isArray(uris) || !uris.every((uri) => typeof uri === 'string' && uri.length <= MAX_URI_LENGTH)) {
        throw invalidParams('"notifications.resourceSubscriptions" must be an array of URIs');
      }
      if (uris.length > MAX_RESOURCES_PER_STREAM)
        throw invalidParams(`At most ${MAX_RESOURCES_PER_STREAM} resource subscriptions per stream`);
      // Updates of a resource are for those who may read it: the whole stream is refused, naming the scopes.
      for (const uri of uris as string[]) {
        const found = this.registry.findResource(uri);
        if (found) this.scopes.check(found.resource.scopes, ctx);
      }
    }
    const taskIds = filter.taskIds;
    if (taskIds !== undefined) {
      if (!declaresTasks(ctx.clientCapabilities)) throw tasksExtensionRequired();
      if (!Array.isArray(taskIds) || !taskIds.every((taskId) => typeof taskId === 'string' && taskId.length <= 256))
        throw invalidParams('"notifications.taskIds" must be an array of task ids');
      if (taskIds.length > MAX_TASKS_PER_STREAM)
        throw invalidParams(`At most ${MAX_TASKS_PER_STREAM} tasks per stream`);
    }
    return filter as SubscriptionFilter;
  }

  /** The part of the request the server can honour: only kinds it has, only tasks the caller can read. */
  private async agree(requested: SubscriptionFilter, owner: string): Promise<SubscriptionFilter> {
    const capabilities = this.registry.capabilities();
    const agreed: SubscriptionFilter = {};
    if (requested.toolsListChanged && capabilities.tools) agreed.toolsListChanged = true;
    if (requested.promptsListChanged && capabilities.prompts) agreed.promptsListChanged = true;
    if (requested.resourcesListChanged && capabilities.resources) agreed.resourcesListChanged = true;
    if (requested.resourceSubscriptions && capabilities.resources)
      agreed.resourceSubscriptions = [...new Set(requested.resourceSubscriptions)];
    if (requested.taskIds && this.registry.servesTasks) {
      const ids = [...new Set(requested.taskIds)];
      const known = await Promise.all(ids.map((taskId) => this.runner.get(owner, taskId)));
      agreed.taskIds = ids.filter((_, index) => known[index] !== undefined);
    }
    return agreed;
  }
}
