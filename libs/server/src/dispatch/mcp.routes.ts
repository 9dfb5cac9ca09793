import { Injectable } from '@nestjs/common';
import { Era } from '@conduit-mcp/core';
import { CompletionMethods } from '../methods/completion.methods';
import { DiscoverMethods } from '../methods/discover.methods';
import { SubscriptionMethods } from '../methods/subscription.methods';
import { LifecycleMethods } from '../methods/lifecycle.methods';
import { PromptMethods } from '../methods/prompt.methods';
import { ResourceMethods } from '../methods/resource.methods';
import { ToolMethods } from '../methods/tool.methods';
import { TaskMethods } from '../methods/task.methods';
import { McpRoute, McpRoutingTable } from './mcp-route.interface';

const LEGACY: readonly Era[] = ['legacy'];
const MODERN: readonly Era[] = ['modern'];
const BOTH: readonly Era[] = ['legacy', 'modern'];

/** The one routing table of a server: every method it answers, the eras it serves them in, what it needs. */
@Injectable()
export class McpRoutes {
  readonly table: McpRoutingTable;

  constructor(
    lifecycle: LifecycleMethods,
    tools: ToolMethods,
    resources: ResourceMethods,
    prompts: PromptMethods,
    completions: CompletionMethods,
    discover: DiscoverMethods,
    subscriptions: SubscriptionMethods,
    tasks: TaskMethods,
  ) {
    const routes: Array<[string, McpRoute]> = [
      ['initialize', { kind: 'request', eras: LEGACY, run: (p, c) => lifecycle.initialize(p, c) }],
      ['ping', { kind: 'request', eras: LEGACY, run: () => lifecycle.ping() }],
      [
        'logging/setLevel',
        { kind: 'request', eras: LEGACY, capability: 'logging', run: (p, c) => lifecycle.setLevel(p, c) },
      ],
      ['tools/list', { kind: 'request', eras: BOTH, capability: 'tools', run: (p, c) => tools.list(p, c) }],
      ['tools/call', { kind: 'request', eras: BOTH, capability: 'tools', run: (p, c) => tools.call(p, c) }],
      ['resources/list', { kind: 'request', eras: BOTH, capability: 'resources', run: (p, c) => resources.list(p, c) }],
      [
        'resources/templates/list',
        { kind: 'request', eras: BOTH, capability: 'resources', run: (p, c) => resources.listTemplates(p, c) },
      ],
      ['resources/read', { kind: 'request', eras: BOTH, capability: 'resources', run: (p, c) => resources.read(p, c) }],
      [
        'resources/subscribe',
        { kind: 'request', eras: LEGACY, capability: 'resources', run: (p, c) => resources.subscribe(p, c) },
      ],
      [
        'resources/unsubscribe',
        { kind: 'request', eras: LEGACY, capability: 'resources', run: (p, c) => resources.unsubscribe(p, c) },
      ],
      ['prompts/list', { kind: 'request', eras: BOTH, capability: 'prompts', run: (p, c) => prompts.list(p, c) }],
      ['prompts/get', { kind: 'request', eras: BOTH, capability: 'prompts', run: (p, c) => prompts.get(p, c) }],
      [
        'completion/complete',
        { kind: 'request', eras: BOTH, capability: 'completions', run: (p, c) => completions.complete(p, c) },
      ],
      ['server/discover', { kind: 'request', eras: MODERN, run: () => discover.discover() }],
      ['subscriptions/listen', { kind: 'request', eras: MODERN, run: (p, c) => subscriptions.listen(p, c) }],
      // 2025-11-25's experimental tasks and the modern era's tasks extension (which has no tasks/result nor list).
      ['tasks/get', { kind: 'request', eras: BOTH, run: (p, c) => tasks.get(p, c) }],
      ['tasks/cancel', { kind: 'request', eras: BOTH, run: (p, c) => tasks.cancel(p, c) }],
      ['tasks/update', { kind: 'request', eras: MODERN, run: (p, c) => tasks.update(p, c) }],
      ['tasks/result', { kind: 'request', eras: LEGACY, run: (p, c) => tasks.result(p, c) }],
      ['tasks/list', { kind: 'request', eras: LEGACY, run: (p, c) => tasks.list(p, c) }],
      ['notifications/initialized', { kind: 'notification', eras: LEGACY, run: (p, c) => lifecycle.initialized(p, c) }],
      ['notifications/cancelled', { kind: 'notification', eras: BOTH, run: (p, c) => lifecycle.cancelled(p, c) }],
      ['notifications/roots/list_changed', { kind: 'notification', eras: LEGACY, run: () => undefined }],
    ];
    this.table = new Map(routes);
  }
}
