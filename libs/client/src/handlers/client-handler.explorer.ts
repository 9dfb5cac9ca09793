import { Injectable, Type, UseGuards, UseInterceptors, UsePipes } from '@nestjs/common';
import { DiscoveryService, ExternalContextCreator, MetadataScanner, Reflector } from '@nestjs/core';
import {
  MCP_CLIENT_CONTEXT_TYPE,
  MCP_CLIENT_PARAMS_METADATA,
  ON_ELICITATION_METADATA,
  ON_LOG_METADATA,
  ON_NOTIFICATION_METADATA,
  ON_ROOTS_METADATA,
  ON_SAMPLING_METADATA,
} from '../mcp-client.constants';
import type { QuestionChecks } from '../safety/client-checks.resolver';
import { McpHandlerScope } from './client-handler.decorators';
import { ClientHandler, ClientHandlers, QuestionKind } from './client-handlers';
import { ClientParamsFactory, describeClientParams } from './client-params.factory';

type Method = (...args: unknown[]) => unknown;

/**
 * Finds the `@OnSampling`, `@OnElicitation`, `@OnRoots`, `@OnNotification` and `@OnLog` methods of the app's
 * providers and wraps each once with Nest's `ExternalContextCreator` (context type `'mcp-client'`), so guards,
 * interceptors, pipes and exception filters run around them; a question handler gets its kind's checks first.
 */
@Injectable()
export class ClientHandlerExplorer {
  private readonly paramsFactory = new ClientParamsFactory();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly contextCreator: ExternalContextCreator,
  ) {}

  explore(checks: Record<QuestionKind, QuestionChecks>): ClientHandlers {
    const handlers = new ClientHandlers();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      const metatype = wrapper.metatype as Type<object> | undefined;
      if (!instance || !metatype?.prototype || wrapper.isAlias || !wrapper.isDependencyTreeStatic()) continue;
      for (const methodName of this.scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
        const method = instance[methodName] as Method;
        const read = <T>(key: string) => this.reflector.get<T>(key, method);
        const handler = (scope: McpHandlerScope, kind?: QuestionKind): ClientHandler => {
          describeClientParams(instance.constructor, methodName);
          return {
            ...scope,
            source: `${metatype.name}.${methodName}`,
            invoke: this.contextCreator.create(
              instance,
              kind ? withChecks(method, checks[kind]) : method,
              methodName,
              MCP_CLIENT_PARAMS_METADATA,
              this.paramsFactory,
              undefined,
              undefined,
              undefined,
              MCP_CLIENT_CONTEXT_TYPE,
            ) as ClientHandler['invoke'],
          };
        };
        const sampling = read<McpHandlerScope>(ON_SAMPLING_METADATA);
        const elicitation = read<McpHandlerScope & { modes: Array<'form' | 'url'> }>(ON_ELICITATION_METADATA);
        const roots = read<McpHandlerScope>(ON_ROOTS_METADATA);
        const notification = read<McpHandlerScope & { method?: string }>(ON_NOTIFICATION_METADATA);
        const log = read<McpHandlerScope>(ON_LOG_METADATA);
        if (sampling) handlers.sampling.push(handler(sampling, 'sampling'));
        if (elicitation)
          handlers.elicitation.push({ ...handler(elicitation, 'elicitation'), modes: elicitation.modes });
        if (roots) handlers.roots.push(handler(roots, 'roots'));
        if (notification) handlers.notifications.push({ ...handler(notification), method: notification.method });
        if (log) handlers.log.push(handler(log));
      }
    }
    return handlers;
  }
}

/**
 * A function standing in for a question handler: it calls the method, and carries the method's metadata with the
 * kind's checks before the method's own enhancers. The method itself is left as the app declared it.
 */
function withChecks(method: Method, checks: QuestionChecks): Method {
  const standIn = function (this: unknown, ...args: unknown[]) {
    return method.apply(this, args);
  };
  Object.defineProperty(standIn, 'name', { value: method.name });
  const descriptor = { value: standIn };
  if (checks.guards.length) UseGuards(...checks.guards)(standIn, method.name, descriptor);
  if (checks.interceptors.length) UseInterceptors(...checks.interceptors)(standIn, method.name, descriptor);
  if (checks.pipes.length) UsePipes(...checks.pipes)(standIn, method.name, descriptor);
  for (const key of Reflect.getMetadataKeys(method)) {
    const own = Reflect.getMetadata(key, method) as unknown;
    const ours = Reflect.getOwnMetadata(key, standIn) as unknown;
    Reflect.defineMetadata(key, Array.isArray(ours) && Array.isArray(own) ? [...ours, ...own] : own, standIn);
  }
  return standIn;
}
