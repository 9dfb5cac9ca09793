import { Injectable, Type } from '@nestjs/common';
import { DiscoveryService, ExternalContextCreator, MetadataScanner, Reflector } from '@nestjs/core';
import { McpHandlerScope } from '../decorators/client-handler.decorators';
import {
  MCP_CLIENT_CONTEXT_TYPE,
  ON_ELICITATION_METADATA,
  ON_LOG_METADATA,
  ON_NOTIFICATION_METADATA,
  ON_ROOTS_METADATA,
  ON_SAMPLING_METADATA,
} from '../mcp-client.constants';
import { ClientHandler, ClientHandlers } from './client-handlers';

/**
 * Finds the `@OnSampling`, `@OnElicitation`, `@OnRoots`, `@OnNotification` and `@OnLog` methods of the app's
 * providers and wraps each once with Nest's `ExternalContextCreator` (context type `'mcp-client'`), so guards,
 * interceptors and exception filters run around them.
 */
@Injectable()
export class ClientHandlerExplorer {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly contextCreator: ExternalContextCreator,
  ) {}

  explore(): ClientHandlers {
    const handlers = new ClientHandlers();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      const metatype = wrapper.metatype as Type<object> | undefined;
      if (!instance || !metatype?.prototype || wrapper.isAlias || !wrapper.isDependencyTreeStatic()) continue;
      for (const methodName of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
        const method = instance[methodName] as (...args: unknown[]) => unknown;
        const read = <T>(key: string) => this.reflector.get<T>(key, method);
        const handler = (scope: McpHandlerScope): ClientHandler => ({
          ...scope,
          source: `${metatype.name}.${methodName}`,
          invoke: this.contextCreator.create(
            instance,
            method,
            methodName,
            undefined,
            undefined,
            undefined,
            undefined,
            undefined,
            MCP_CLIENT_CONTEXT_TYPE,
          ) as ClientHandler['invoke'],
        });
        const sampling = read<McpHandlerScope>(ON_SAMPLING_METADATA);
        const elicitation = read<McpHandlerScope & { modes: Array<'form' | 'url'> }>(ON_ELICITATION_METADATA);
        const roots = read<McpHandlerScope>(ON_ROOTS_METADATA);
        const notification = read<McpHandlerScope & { method?: string }>(ON_NOTIFICATION_METADATA);
        const log = read<McpHandlerScope>(ON_LOG_METADATA);
        if (sampling) handlers.sampling.push(handler(sampling));
        if (elicitation) handlers.elicitation.push({ ...handler(elicitation), modes: elicitation.modes });
        if (roots) handlers.roots.push(handler(roots));
        if (notification) handlers.notifications.push({ ...handler(notification), method: notification.method });
        if (log) handlers.log.push(handler(log));
      }
    }
    return handlers;
  }
}
