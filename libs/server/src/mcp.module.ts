import { DynamicModule, Module, Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { SchemaValidator } from '@conduit-mcp/core';
import { McpHandlerFactory } from './invocation/mcp-handler.factory';
import { McpExplorer } from './discovery/mcp.explorer';
import { McpDispatcher } from './dispatch/mcp.dispatcher';
import { McpRoutes } from './dispatch/mcp.routes';
import { McpHealthIndicator } from './health/mcp.health';
import { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { LegacyEra } from './eras/legacy/legacy.era';
import { ModernEra } from './eras/modern/modern.era';
import { CompletionMethods } from './methods/completion.methods';
import { DiscoverMethods } from './methods/discover.methods';
import { SubscriptionMethods } from './methods/subscription.methods';
import { McpSubscriptionHub } from './events/subscription.hub';
import { LifecycleMethods } from './methods/lifecycle.methods';
import { PromptMethods } from './methods/prompt.methods';
import { ResourceMethods } from './methods/resource.methods';
import { ToolMethods } from './methods/tool.methods';
import { TaskMethods } from './methods/task.methods';
import { ToolTasks } from './methods/tool-tasks';
import { LegacyToolTasks } from './methods/legacy-tool-tasks';
import { LegacyTaskChannels } from './tasks/legacy-task.channel';
import { McpTaskRunner } from './tasks/mcp-task.runner';
import { McpTaskExecutor } from './tasks/mcp-task.executor';
import { ASYNC_OPTIONS_TYPE, ConfigurableModuleClass, OPTIONS_TYPE } from './mcp.module-definition';
import { getMcpServerToken } from './mcp-server.token';
import { McpServer } from './mcp.server';
import { McpServerHost } from './mcp-server.host';
import { MCP_STATE_PROVIDERS } from './mcp.providers';
import { McpScopePolicy } from './auth/scope.policy';
import { McpRegistry } from './registry/mcp.registry';
import { McpTelemetry } from './telemetry/mcp.telemetry';
import { McpHttpBinding } from './transports/http/mcp-http.binding';
import { InFlightRequests } from './dispatch/in-flight.requests';
import { McpGracefulShutdown } from './shutdown/mcp-graceful.shutdown';
import { RequestStateKeyWarning } from './eras/modern/mrtr/request-state-key.warning';

/**
 * Turns the app's decorated providers into an MCP server: `McpModule.forRoot({ name, version })`. Import it once per
 * server; methods decorated with `@McpTool`, `@McpResource`, `@McpPrompt` and `@McpCompletion` anywhere in the app
 * are served (limit them to one server with the decorators' `server` option).
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    McpServer,
    McpServerHost,
    McpRegistry,
    McpExplorer,
    McpHandlerFactory,
    McpDispatcher,
    McpRoutes,
    LifecycleMethods,
    ToolMethods,
    TaskMethods,
    ToolTasks,
    LegacyToolTasks,
    LegacyTaskChannels,
    McpTaskRunner,
    McpTaskExecutor,
    ResourceMethods,
    PromptMethods,
    CompletionMethods,
    DiscoverMethods,
    SubscriptionMethods,
    McpSubscriptionHub,
    LegacyEra,
    ModernEra,
    McpTelemetry,
    McpHealthIndicator,
    McpHttpBinding,
    McpScopePolicy,
    InFlightRequests,
    McpGracefulShutdown,
    RequestStateKeyWarning,
    { provide: SchemaValidator, useFactory: () => new SchemaValidator() },
    ...MCP_STATE_PROVIDERS,
  ],
  exports: [McpServer, McpHealthIndicator],
})
export class McpModule extends ConfigurableModuleClass {
  /**
   * One MCP server, named by `options.name` (inject it as `McpServer`, or `@InjectMcpServer(name)` when there are
   * several). Global unless `isGlobal: false`.
   *
   * @example
   * ```ts
   * @Module({
   *   imports: [McpModule.forRoot({ name: 'weather', version: '1.0.0', http: { path: '/mcp' } })],
   *   providers: [WeatherTools],
   * })
   * export class AppModule {}
   * ```
   */
  static forRoot(options: typeof OPTIONS_TYPE): DynamicModule {
    return withNamedServer(super.forRoot(options), options.name);
  }

  /**
   * `McpModule.forRoot` with options a factory builds from injected providers (a store or bus from a client, settings).
   * `name` is needed up front to register `@InjectMcpServer(name)`; the factory's `name` must match it.
   *
   * @example
   * ```ts
   * McpModule.forRootAsync({
   *   name: 'weather',
   *   imports: [SettingsModule],
   *   inject: [Settings],
   *   useFactory: (settings: Settings) => ({ name: 'weather', version: '1.0.0', pageSize: settings.pageSize }),
   * });
   * ```
   */
  static forRootAsync(options: typeof ASYNC_OPTIONS_TYPE & { name?: string }): DynamicModule {
    const module = super.forRootAsync(options);
    return options.name ? withNamedServer(module, options.name) : module;
  }
}

function withNamedServer(module: DynamicModule, name: McpModuleOptions['name']): DynamicModule {
  const named: Provider = { provide: getMcpServerToken(name), useExisting: McpServer };
  return { ...module, providers: [...(module.providers ?? []), named], exports: [...(module.exports ?? []), named] };
}
